// Which exception names an issue (its title and metadata type/value), as Sentry picks it
// (eventtypes/error.py reads the main_exception_id the grouping strategy leaves on the event):
// the last exception sent, unless
// - the event is an exception group that comes down to one distinct member: that member, so an
//   AggregateError of one failure reads as that failure (see exception-groups.ts);
// - the chain, as grouping keeps it, is one of the wrappers Sentry looks through: React 19's
//   "React was able to recover" error names its cause; RxJava's framework exceptions thrown to
//   the uncaught-exception handler name the exception they wrap.
import type { ExceptionValue, NormalizedEvent } from '../event/event.ts';
import { primaryException } from '../event/event.ts';
import { selectExceptionsOfGroups } from './exception-groups.ts';

const REACT_ERRORS_WITH_CAUSE = new Set([
  'There was an error during concurrent rendering but React was able to recover by instead synchronously rendering the entire root.',
  'There was an error while hydrating but React was able to recover by instead client rendering from the nearest Suspense boundary.',
]);
const RXJAVA_EXCEPTIONS_MODULE = 'io.reactivex.rxjava3.exceptions';
const RXJAVA_WRAPPER_TYPES = new Set(['OnErrorNotImplementedException', 'CompositeException', 'UndeliverableException']);

export function mainException(event: NormalizedEvent): ExceptionValue | undefined {
  const all = event.exception?.values ?? [];
  const { exceptions, main } = selectExceptionsOfGroups(all, { platform: event.platform, sdkVersion: event.sdk?.version });
  // Sentry takes an id of 0 (or none) as no main exception.
  const wrappedId = exceptions.length > 1 ? (reactCauseId(exceptions) ?? rxJavaWrappedId(exceptions)) : undefined;
  const wrapped = wrappedId ? all.find((exception) => exception.mechanism?.exception_id === wrappedId) : undefined;
  return wrapped ?? main ?? primaryException(event);
}

/** React 19 wraps an error it recovered from; the cause, last in the chain, is what failed. */
function reactCauseId(exceptions: ExceptionValue[]): number | undefined {
  const [first] = exceptions;
  const last = exceptions[exceptions.length - 1]!;
  if (first?.type !== 'Error' || !REACT_ERRORS_WITH_CAUSE.has(first.value ?? '')) return undefined;
  return last.mechanism?.source === 'cause' ? last.mechanism.exception_id : undefined;
}

/** The exception an RxJava framework exception (thrown to the uncaught handler) wraps. */
function rxJavaWrappedId(exceptions: ExceptionValue[]): number | undefined {
  const wrapper = exceptions.find(
    (exception) =>
      exception.module === RXJAVA_EXCEPTIONS_MODULE &&
      RXJAVA_WRAPPER_TYPES.has(exception.type ?? '') &&
      exception.mechanism?.type === 'UncaughtExceptionHandler',
  );
  const wrapperId = wrapper?.mechanism?.exception_id;
  if (wrapperId === undefined) return undefined;
  return exceptions.find(
    (exception) => exception.mechanism?.parent_id === wrapperId && exception.mechanism.exception_id !== undefined,
  )?.mechanism?.exception_id;
}
