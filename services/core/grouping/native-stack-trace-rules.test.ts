import { describe, expect, it } from 'vitest';
import type { Frame } from '../event/event.ts';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';

interface FrameInput {
  function: string;
  package?: string;
  in_app?: boolean;
}

function crash(platform: string, type: string, frames: FrameInput[]) {
  const raw = { platform, exception: { values: [{ type, stacktrace: { frames } }] } };
  return groupEvent(prepareEvent(raw, { eventId: 'c'.repeat(32), receivedAt: Date.UTC(2026, 10, 25) / 1000 }));
}

/** The functions of the frames that still count for grouping, oldest first. */
function grouped(frames: Frame[]): string[] {
  return frames.filter((frame) => frame.data?.ignored_for_grouping !== true).map((frame) => frame.function!);
}

const framesOf = (result: ReturnType<typeof crash>) => result.event.exception!.values[0]!.stacktrace!.frames;

const UIKIT = 'UIKitCore';
const APPKIT = '/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit';
const COREFOUNDATION = '/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation';

describe("Sentry's built-in native stack-trace rules", () => {
  it('group a Cocoa crash as Sentry does (its corpus input fallback-prefix-level-1)', () => {
    const result = crash('cocoa', 'EXC_BAD_ACCESS', [
      { function: 'start', package: 'libdyld.dylib', in_app: false },
      { function: 'stripped_application_code' },
      { function: 'UIApplicationMain', package: UIKIT, in_app: false },
      { function: '-[UIApplication _run]', package: UIKIT, in_app: false },
      { function: 'GSEventRunModal', package: 'GraphicsServices', in_app: false },
      { function: 'objc_release', package: 'libobjc.A.dylib', in_app: false },
    ]);
    expect(result.grouping.hashes).toEqual([md5(['-[UIApplication _run]', 'objc_release', 'EXC_BAD_ACCESS'])]);
  });

  it('drop thread bases and everything that called them', () => {
    const frames = framesOf(
      crash('cocoa', 'EXC_BAD_ACCESS', [
        { function: 'early_setup', package: 'MyApp', in_app: true },
        { function: 'start', package: 'libdyld.dylib' },
        { function: 'handleTap', package: 'MyApp', in_app: true },
      ]),
    );
    expect(grouped(frames)).toEqual(['handleTap']);
  });

  it('keep a UI frame called by the app but not the UI frames it calls in turn', () => {
    const frames = framesOf(
      crash('cocoa', 'EXC_BAD_ACCESS', [
        { function: 'handleTap', package: 'MyApp', in_app: true },
        { function: '-[UIApplication _run]', package: UIKIT },
        { function: 'GSEventRunModal', package: 'GraphicsServices' },
        { function: '-[UIView layoutSubviews]', package: UIKIT },
      ]),
    );
    expect(grouped(frames)).toEqual(['handleTap', '-[UIApplication _run]']);
  });

  it('keep only the first of a run of system frames', () => {
    const frames = framesOf(
      crash('native', 'EXC_BAD_ACCESS', [
        { function: 'render', package: '/Applications/My.app/Contents/MacOS/My', in_app: true },
        { function: 'CFRunLoopRunSpecific', package: COREFOUNDATION },
        { function: 'CFRunLoopRun', package: COREFOUNDATION },
        { function: 'CFRunLoopDoSources', package: COREFOUNDATION },
      ]),
    );
    expect(grouped(frames)).toEqual(['render', 'CFRunLoopRunSpecific']);
  });

  it('keep only the first of a run of standard library frames, judging the run as it was before the rule', () => {
    // Each std:: frame called by another becomes "internals"; were the rule to see its own
    // changes, the third would follow an internals frame, no longer a std one, and count.
    const frames = framesOf(
      crash('native', 'SIGSEGV', [
        { function: 'rank_players', package: '/Users/me/game', in_app: true },
        { function: 'std::sort', package: '/Users/me/game' },
        { function: 'std::partition', package: '/Users/me/game' },
        { function: 'std::swap', package: '/Users/me/game' },
      ]),
    );
    expect(grouped(frames)).toEqual(['rank_players', 'std::sort']);
  });

  it('drop a system frame wedged between two frames that are not system frames', () => {
    const frames = framesOf(
      crash('native', 'EXC_BAD_ACCESS', [
        { function: 'stripped_application_code' },
        { function: '-[NSApplication run]', package: APPKIT },
        { function: 'stripped_application_code' },
      ]),
    );
    expect(grouped(frames)).toEqual(['stripped_application_code', 'stripped_application_code']);
  });

  it('never take operating system frames for the app, whatever the SDK said', () => {
    const frames = framesOf(
      crash('native', 'EXC_BAD_ACCESS', [{ function: 'CFRelease', package: COREFOUNDATION, in_app: true }]),
    );
    expect(frames[0]!.in_app).toBe(false);
  });

  it('group an abort by the abort, not by what it raised nor by the crash handler after it', () => {
    const frames = framesOf(
      crash('native', 'SIGABRT', [
        { function: 'draw', package: '/Applications/My.app/Contents/MacOS/My', in_app: true },
        { function: 'abort', package: '/usr/lib/system/libsystem_c.dylib' },
        { function: 'raise', package: '/usr/lib/system/libsystem_c.dylib' },
        { function: '__pthread_kill', package: '/usr/lib/system/libsystem_kernel.dylib' },
      ]),
    );
    expect(grouped(frames)).toEqual(['draw', 'abort']);
  });

  it('drop a signal handler and the crash reporting frames it calls', () => {
    const frames = framesOf(
      crash('native', 'SIGSEGV', [
        { function: 'draw', package: '/Applications/My.app/Contents/MacOS/My', in_app: true },
        { function: '_sigtramp', package: '/usr/lib/system/libsystem_platform.dylib' },
        { function: 'report_crash', package: '/Applications/My.app/Contents/MacOS/My', in_app: true },
      ]),
    );
    expect(grouped(frames)).toEqual(['draw']);
  });

  it('drop compiler-generated Swift thunks', () => {
    const frames = framesOf(
      crash('cocoa', 'EXC_BAD_ACCESS', [
        { function: 'stripped_application_code', in_app: true },
        { function: '@callee_guaranteed', package: 'MyApp', in_app: true },
        { function: 'stripped_application_code', in_app: true },
      ]),
    );
    expect(grouped(frames)).toEqual(['stripped_application_code', 'stripped_application_code']);
  });

  it('take a C++ throw and the frames it calls out of the app and of grouping', () => {
    const frames = framesOf(
      crash('native', 'std::runtime_error', [
        { function: 'load_config', package: '/Users/me/app', in_app: true },
        { function: '__cxa_throw', package: '/Users/me/app', in_app: true },
        { function: '_Unwind_RaiseException', package: '/Users/me/app', in_app: true },
      ]),
    );
    expect(grouped(frames)).toEqual(['load_config']);
    expect(frames.map((frame) => frame.in_app)).toEqual([true, false, false]);
  });

  it("take the Sentry SDK's own frames and Rust's standard library out of the app", () => {
    const frames = framesOf(
      crash('native', 'panic', [
        { function: 'main', package: '/Users/me/app', in_app: true },
        { function: 'std::rt::lang_start', package: '/Users/me/app', in_app: true },
        { function: '-[SentryClient captureException:]', package: '/Users/me/app', in_app: true },
      ]),
    );
    expect(frames.map((frame) => frame.in_app)).toEqual([true, false, false]);
    expect(grouped(frames)).toEqual(['main', 'std::rt::lang_start']);
  });

  it("leave a lambda's call operator out of grouping but the app's, as an indirection", () => {
    const frames = framesOf(
      crash('native', 'SIGSEGV', [
        { function: 'Worker::run', package: '/opt/app/bin/app', in_app: true },
        { function: '<lambda_5db80dab47756d3e72c2dcd38b80b1dd>::operator()', package: '/opt/app/bin/app', in_app: true },
        { function: 'parse_row', package: '/opt/app/bin/app', in_app: true },
      ]),
    );
    expect(grouped(frames)).toEqual(['Worker::run', 'parse_row']);
    expect(frames.map((frame) => frame.in_app)).toEqual([true, true, true]);
  });

  it('leave frames of other platforms alone', () => {
    const frames = framesOf(
      crash('javascript', 'Error', [
        { function: 'start', package: 'libdyld.dylib', in_app: true },
        { function: 'abort', in_app: true },
        { function: 'raise', in_app: true },
      ]),
    );
    expect(grouped(frames)).toEqual(['start', 'abort', 'raise']);
    expect(frames.every((frame) => frame.data?.category === undefined)).toBe(true);
  });
});
