// A bound on any call to the broker that a caller waits for (publish, ping, lag, drain):
// the client retries on its own schedule, and a request path must not wait on that schedule.
// The work itself is not cancelled; its late outcome is ignored.

class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), Math.max(0, ms));
  });
  // A late rejection of the abandoned work must not surface as an unhandled rejection.
  work.catch(() => {});
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
