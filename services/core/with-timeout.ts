// A bound on a call its caller waits for (a broker publish, a key lookup, a health check): the
// driver retries or hangs on its own schedule, and a request path must not wait on that schedule.
// The work itself is not cancelled; its late outcome is ignored.

export class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** The work's outcome, or a TimeoutError once `ms` have passed without it settling. */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), Math.max(0, ms));
  });
  // A late rejection of the abandoned work must not surface as an unhandled rejection.
  work.catch(() => {});
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
