// Sentry's built-in stack-trace rules for native stacks (C, C++, Objective-C, Swift, Rust),
// as facts in Sentry's own rule syntax: the native and category rules of its enhancement config
// newstyle@2023-01-11 (getsentry/sentry, src/sentry/grouping/enhancer/enhancement-configs/
// newstyle@2023-01-11.txt), in its order. Without them a Cocoa or minidump crash groups by the
// run loop, thread start and crash handler frames every crash of the app shares.
//
// The rules file frames under categories (system, ui, threadbase, throw, internals...) and then
// decides by category what is not the app's (`category:system -app`) and what does not count
// for grouping (`category:internals -group`). Left out: the rules for other platforms, which
// in-app.ts applies (JavaScript, Python, Go, Dart, the JVM), and the Android/Java `module:`
// categories. A project's own stack-trace rules run after these.
import { eventStacktraces, type NormalizedEvent } from '../event/event.ts';
import { platformFamily } from './rules/match-values.ts';
import { parseStackTraceRules, type StackTraceRule } from './rules/stack-trace-rules.ts';

const NATIVE_RULES_TEXT = `
# iOS known apps
family:native package:/var/containers/Bundle/Application/**          +app
family:native package:/private/var/containers/Bundle/Application/**  +app

# iOS apps in simulator
family:native package:**/Developer/CoreSimulator/Devices/**          +app
family:native package:**/Containers/Bundle/Application/**            +app

# well known path components for mac paths
family:native package:**.app/Contents/**                             +app
family:native package:/Users/**                                      +app

# Unreal Engine: assertion and ensure handling, the UE SDK's event capturing
family:native stack.function:FDebug::CheckVerifyFailedImpl*                v+app -app ^-app
family:native stack.function:UE::Assert::Private::ExecCheckImplInternal*   v+app -app ^-app
family:native stack.function:USentrySubsystem::CaptureMessage*             v+app -app ^-app
family:native stack.function:USentrySubsystem::CaptureMessageWithScope*    v+app -app ^-app
family:native stack.function:USentrySubsystem::CaptureEvent*               v+app -app ^-app
family:native stack.function:USentrySubsystem::CaptureEventWithScope*      v+app -app ^-app
family:native stack.function:USentrySubsystem::*execCapture*               v+app -app ^-app

# known well locations for unix paths
family:native package:/lib/**                                        -app
family:native package:/usr/lib/**                                    -app
family:native path:/usr/local/lib/**                                 -app
family:native path:/usr/local/Cellar/**                              -app
family:native package:linux-gate.so*                                 -app

# rust common modules/functions
family:native function:std::*                                     -app
family:native function:core::*                                    -app
family:native function:alloc::*                                   -app
family:native function:__rust_*                                   -app
family:native function:rust_begin_unwind                          -app

# rust borders
family:native function:std::panicking::begin_panic                ^-group -group ^-app -app
family:native function:core::panicking::begin_panic               ^-group -group ^-app -app
family:native function:failure::backtrace::Backtrace::new         ^-group -group ^-app -app
family:native function:error_chain::make_backtrace                ^-group -group ^-app -app
family:native function:std::panicking::panic_fmt                  ^-app -app
family:native function:core::panicking::panic_fmt                 ^-app -app

# C++ borders
family:native function:_CxxThrowException                         ^-group -group ^-app -app
family:native function:__cxa_throw                                ^-group -group ^-app -app
family:native function:__assert_rtn                               ^-group -group ^-app -app

# Objective-C
family:native function:_NSRaiseError                              ^-group -group ^-app -app
family:native function:_mh_execute_header                         -group -app

# Breakpad
family:native function:google_breakpad::*                         -app -group
family:native function:google_breakpad::ExceptionHandler::SignalHandler ^-group -group
family:native function:google_breakpad::ExceptionHandler::WriteMinidumpWithException ^-group -group

# Support frameworks that are not in-app
family:native package:**/Frameworks/libswift*.dylib                  -app
family:native package:**/Frameworks/KSCrash.framework/**             -app
family:native package:**/Frameworks/SentrySwift.framework/**         -app
family:native package:**/Frameworks/Sentry.framework/**              -app

# sentry-cocoa before 7.0.0 and static linking: the SDK's own frames
family:native function:kscm_*                                     -app -group
family:native function:sentrycrashcm_*                            -app -group
family:native function:kscrash_*                                  -app -group
family:native function:*sentrycrash_*                             -app -group
family:native function:"?[[]KSCrash*"                             -app -group
family:native function:"?[[]RNSentry*"                            -app -group
family:native function:"__*[[]Sentry*"                            -app -group
family:native function:"?[[]Sentry*"                              -app -group

# Dart and Flutter on Android (the JavaScript and package: rules are in in-app.ts)
family:native stack.package:/data/app/** stack.abs_path:**.dart +app
family:native stack.abs_path:**/packages/flutter/** -app
family:native stack.abs_path:**/.pub-cache/** -app

# Categorization of frames
family:native package:"/System/Library/Frameworks/**" category=system
family:native package:"C:/Windows/**" category=system
family:native package:/usr/lib/** category=system
family:native function:memset category=system
family:native function:memcpy category=system
family:native function:__memcpy category=system
family:native function:memcmp category=system
family:native package:CoreFoundation category=system
family:native package:Foundation category=system
family:native package:CFNetwork category=system
family:native package:IOKit category=system
family:native package:QuartzCore category=system
family:native package:IOMobileFramebuffer category=system
family:native package:libobjc* category=system
family:native package:libsystem* category=system
family:native package:/system/** category=system
family:native package:/vendor/** category=system
family:native package:libdispatch.dylib category=system
family:native package:WebKit category=system
family:native package:**/libart.so category=system
package:/apex/com.android.*/lib*/** category=system

family:native function:boost::* category=std
family:native function:std::* category=std

family:native package:UIKit category=ui
family:native package:UIKitCore category=ui
family:native package:SwiftUI category=ui
family:native package:AttributeGraph category=ui
family:native package:CoreAutoLayout category=ui
family:native package:GraphicsServices category=ui
family:native function:"-[[]NSISEngine*" category=ui
category:ui function:handleMessage category=indirection
category:ui function:run category=indirection

family:native function:art::jit::* category=runtime

family:native package:/system/lib/libmedia.so category=av
family:native package:/System/lib/libaudioclient.so category=av
family:native package:AudioToolbox* category=av
family:native package:libAudioToolboxUtility.dylib category=av

family:native function:std::_* category=internals
family:native function:__swift_* category=internals
family:native function:block_destroy_helper* category=internals
family:native function:*_block_invoke* app:no category=internals

family:native package:/usr/lib/system/** function:start category=threadbase
family:native package:libdyld.dylib function:start category=threadbase
family:native package:UIKitCore function:UIApplicationMain category=threadbase
family:native function:wWinMain category=threadbase
family:native function:invoke_main category=threadbase
family:native function:BaseThreadInitThunk category=threadbase
family:native function:RtlUserThreadStart category=threadbase
family:native function:thread_start category=threadbase
family:native function:_pthread_start category=threadbase
family:native function:__pthread_start category=threadbase
family:native function:_pthread_body category=threadbase
family:native function:_dispatch_worker_thread2 category=threadbase
family:native function:start_wqthread category=threadbase
family:native function:_pthread_wqthread category=threadbase
family:native function:boost::*::thread_proxy category=threadbase
family:native package:/usr/lib/system/libsystem_pthread.dylib function:"<unknown>" category=threadbase
family:native package:UIKit function:UIApplicationMain category=threadbase
family:native function:TppWorkerThread category=threadbase
family:native function:TppWorkpExecuteCallback category=threadbase
family:native function:RtlpTpWorkCallback category=threadbase

family:native package:"**/libsystem_malloc.dylib" category=malloc
family:native function:malloc category=malloc
family:native function:malloc_base category=malloc
family:native function:RtlpAllocateHeapInternal category=malloc
family:native function:std::*::allocator_traits* category=malloc

family:native function:*::operator()* category=indirection
family:native function:*<lambda>* category=indirection
family:native function:destructor' category=indirection
family:native function:__dynamic_cast category=indirection
family:native function:boost::function* category=indirection
family:native function:boost::_bi::* category=indirection
family:native function:boost::detail::function::functor_manager* category=indirection
family:native function:Array.subscript.* category=indirection

# Sentry writes this pattern with escaped braces; they are plain characters in our globs.
family:native function:"*::{dtor}" category=dtor
family:native function:"destructor'" category=dtor

family:native function:exit category=shutdown
family:native function:RtlExitUserProcess category=shutdown
family:native function:ExitProcessImplementation category=shutdown
family:native function:RtlExitUserThread category=shutdown

family:native function:RtlpExecuteHandlerForException category=handler
family:native function:_sigtramp category=handler
family:native function:DispatchHookW category=handler
family:native function:execute_onexit_table category=handler

family:native function:abort category=throw
family:native function:raise category=throw
family:native function:std::terminate category=throw
family:native function:RtlExitUserThread category=throw
family:native function:TppRaiseInvalidParameter category=throw
family:native function:_CxxThrowException category=throw
family:native function:RaiseException category=throw
family:native function:RaiseComPlusException category=throw
family:native function:_CFThrowFormattedException category=throw
family:native function:objc_exception_throw category=throw
family:native function:AG::precondition_failure* category=throw

family:native package:"C:/WINDOWS/system32/DriverStore/**" category=driver
family:native package:"/System/Library/Extensions/AppleIntel*GraphicsGLDriver.bundle/**" category=driver
family:native function:*CUDA* category=driver
family:native package:**/nvcuda.dll category=driver
family:native package:"C:/Program Files/NVIDIA Corporation/**" category=driver
family:native package:/System/Library/Extensions/GeForceGLDriver.bundle/** category=driver
family:native package:/System/Library/Extensions/AMDRadeon*/** category=driver
family:native package:/System/Library/PrivateFrameworks/GPUSupport.framework/** category=driver
family:native package:libGPUSupportMercury.dylib category=driver
family:native package:AGXGLDriver category=driver

family:native function:RtlFreeHeap category=free
family:native function:RtlFreeUnicodeString category=free
family:native function:std::_Deallocate category=free
family:native function:free category=free
family:native function:objc_release category=free
family:native function:_swift_release_dealloc category=free
family:native function:_CFRelease category=free

family:native package:C:/Windows/SYSTEM32/OPENGL32.dll category=gl
family:native package:/System/Library/Frameworks/OpenGL.framework/** category=gl
family:native package:OpenGLES category=gl
family:native package:GLEngine category=gl
family:native package:/system/lib/libEGL.so category=gl
family:native package:**/libGLES*.so category=gl
family:native package:**/libESXGLES*.so category=gl
family:native package:/system/lib/libskia.so category=gl
family:native package:/System/Library/Frameworks/OpenCL.framework/** category=gl

family:native package:"/System/Library/PrivateFrameworks/GPUSupport.framework/**" function:gpusGenerateCrashLog* category=telemetry
family:native function:gpusKillClientExt category=telemetry
family:native function:crashpad::* category=telemetry
package:"**/libBugly.so" category=telemetry

family:native function:dlopen category=load
family:native function:dladdr category=load
family:native function:ImageLoaderMachO::findClosestSymbol category=load
family:native package:/system/lib/libnativeloader.so function:android::OpenNativeLibrary category=load

family:native function:pthread_mutex_lock category=lock

# A driver frame directly calling another driver frame is noise.
category:driver | [ category:driver ] category=internals

# Only the top-level GL, audio/video and malloc operation groups, not the helpers it called.
[ category:gl ] | category:gl category=internals
[ category:av ] | category:av  category=internals
[ category:malloc ] | category:malloc category=internals

# abort() and exception raising are technically the culprit of a crash, not the thing to show.
category:throw ^-group

# On Windows, _purecall internally aborts when the function pointer is invalid.
[ function:_purecall ] | category:throw category=internals

# raise() called by abort() groups only by abort().
[ category:throw ] | category:throw category=internals

# Frames from the OS are never in-app.
category:system -app

# Thread bases such as main() are noise and are called by noise.
category:threadbase -group v-group

# Handler frames call crash reporting code: the frames below them are noise.
category:handler ^-group -group

# Crash reporting tools (Apple's GPUSupport module) are noise outside signal handlers too.
category:telemetry -group

category:indirection -group
category:internals -group
category:threadbase v-group -group

# System frames starting with an underscore (or unsymbolicated) are likely garbage; _purecall
# is often the only important frame in a block of system frames.
family:native category:system function:_* !function:_purecall category=internals
family:native category:system function:"<unknown>" category=internals
family:native function:_INTERNAL* category=internals

# Compiler-generated code, by function name (sentry-cocoa 6 marks it unreliably).
family:native function:closure category=internals
family:native function:Collection.map<T> category=internals
family:native function:Array.subscript.getter category=internals
family:native function:Array._getElement category=internals
family:native function:_ArrayBuffer._nativeTypeChecked.getter category=internals
family:native function:range category=internals
family:native function:@callee_guaranteed category=internals

# .cold.1 frames are slow paths of a hot function, not relevant for grouping.
family:native function:*.cold.1 category=indirection

# A system frame wedged between two other frames is noise.
[ !category:system ] | category:system | [ !category:system ] category=indirection

[ category:free ]       | category:system  category=internals
[ category:system ]     | category:system  category=internals
[ category:std ]        | category:system  category=internals
[ category:std ]        | category:std     category=internals
[ category:ui ]         | category:ui      category=internals
[ category:ui ]         | category:system  category=internals
[ category:internals ]  | category:system  category=internals
[ category:internals ]  | category:ui      category=internals
[ category:load ]       | category:system  category=internals
[ category:load ]       | category:load    category=internals
[ category:throw ]      | category:system  category=internals
[ category:runtime ]    | category:system  category=internals
[ category:runtime ]    | category:runtime category=internals
[ category:dtor ]       | category:dtor    category=internals
`;

const NATIVE_RULES: readonly StackTraceRule[] = parseStackTraceRules(NATIVE_RULES_TEXT);

/**
 * The built-in rules an event needs: the native ones when any of its frames is native (every
 * rule here matches native frames only, or frames a native rule filed under a category).
 */
export function builtInStackTraceRules(event: NormalizedEvent): readonly StackTraceRule[] {
  return eventStacktraces(event).some((stacktrace) =>
    stacktrace.frames.some((frame) => platformFamily(frame.platform ?? event.platform) === 'native'),
  )
    ? NATIVE_RULES
    : [];
}
