// Structured JSON logs (pino) for every role. Messages are constant strings and data goes in
// fields; anything that could carry a secret is redacted before it is written.
import { pino, type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'req.headers.authorization',
  'req.headers["x-sentry-auth"]',
  'req.headers.cookie',
  '*.token',
  '*.secret',
  '*.password',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'errata' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? process.stdout,
  );
}
