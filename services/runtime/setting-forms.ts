// The forms of the settings that both the runtime (config.ts) and the operator's `Errata`
// resource check. One definition each, so that the API server refuses a spec whose pods would
// refuse to start: a refusal at `kubectl apply` says what was wrong, a crash loop does not.

/** A pattern and the words for a value that does not match it. */
interface Form {
  pattern: RegExp;
  message: string;
}

const BROKER = String.raw`[^,\s]+:\d+`;
export const KAFKA_BROKER: Form = { pattern: new RegExp(`^${BROKER}$`), message: 'host:port, e.g. kafka-0.kafka:9092' };

/** Comma-separated, as ERRATA_KAFKA_BROKERS carries them. */
export const KAFKA_BROKER_LIST: Form = {
  pattern: new RegExp(`^${BROKER}(,${BROKER})*$`),
  message: 'a comma-separated list of host:port',
};

export const KAFKA_TOPIC_PREFIX: Form = {
  pattern: /^[A-Za-z0-9._-]{0,100}$/,
  message: 'use letters, digits, ".", "_" or "-" (at most 100)',
};

export const CLICKHOUSE_DATABASE: Form = { pattern: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/, message: 'use letters, digits and "_"' };

export const S3_BUCKET: Form = {
  pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
  message: 'an S3 bucket name (3-63 lowercase characters)',
};

export const OIDC_SCOPES: Form = {
  pattern: /(^|\s)openid(\s|$)/,
  message: 'a space-separated list of scopes that includes openid, e.g. "openid email profile"',
};

/** http:// or https://: zod's URL check keeps its protocol rule out of the CRD's JSON Schema. */
export const HTTP_URL: Form = { pattern: /^https?:\/\/[^\s]+$/, message: 'an http:// or https:// URL' };
