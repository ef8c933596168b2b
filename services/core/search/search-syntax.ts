// The one search syntax (DESIGN.md, "The dashboard"): `key:value`, `!key:value`, quoted values
// (`key:"two words"`, `"free text: with a colon"`) and free text, all of which must hold (there
// is no OR). It is parsed here, once, into a flat tree of terms; what a key means is the
// caller's (issue-search.ts for issues), and each store adapter compiles the result. Every
// error names the token that caused it and says what is accepted instead.
import { UserInputError } from '../errors.ts';
import { ownValue } from '../event/coerce.ts';

/** `key:value` or `!key:value`; `key` is the spec's own spelling, whatever alias was typed. */
export interface FilterTerm {
  kind: 'filter';
  key: string;
  value: string;
  negated: boolean;
  /** The token as typed, for error messages. */
  token: string;
}

/** A word or a quoted phrase that is not a filter. */
interface TextTerm {
  kind: 'text';
  value: string;
  token: string;
}

type SearchTerm = FilterTerm | TextTerm;

export interface SearchKey {
  /** Other spellings accepted (Sentry's); keys are matched without regard to case. */
  aliases?: readonly string[];
  /** The values allowed, when the key takes a fixed set; matched without regard to case. */
  values?: readonly string[];
  /** Whether `!key:value` is accepted: only where the stores can compile it. */
  negatable: boolean;
}

export interface SearchSpec {
  keys: Readonly<Record<string, SearchKey>>;
  /** Keys people will try that the stores cannot answer, with what to use instead. */
  refused?: Readonly<Record<string, string>>;
  /**
   * When set, any other key is a filter too, kept as typed, under this rule (log attributes:
   * `http.status_code:500`); without it an unknown key is refused.
   */
  otherKeys?: SearchKey;
}

/** A query that does not parse; `token` is the offending part, as typed. */
export class SearchSyntaxError extends UserInputError {
  readonly token: string;
  constructor(token: string, problem: string) {
    super(`invalid search at ${JSON.stringify(token)}: ${problem}`);
    this.token = token;
  }
}

// A key starts with a letter; `!` negates. Anything else before a colon is free text.
const KEY = /(!?)([A-Za-z][A-Za-z0-9_.-]*):/y;

/** The terms of `query`, in the order typed; throws SearchSyntaxError naming the bad token. */
export function parseSearch(query: string, spec: SearchSpec): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const keys = keyIndex(spec);
  let i = 0;
  while (i < query.length) {
    if (/\s/.test(query[i]!)) {
      i++;
      continue;
    }
    const start = i;
    if (query[i] === '"') {
      const quoted = readQuoted(query, i);
      i = quoted.end;
      const token = query.slice(start, i);
      if (quoted.value === '') throw new SearchSyntaxError(token, 'empty quotes: put the text to find between them');
      terms.push({ kind: 'text', value: quoted.value, token });
      continue;
    }
    KEY.lastIndex = i;
    const key = KEY.exec(query);
    if (!key) {
      i = wordEnd(query, i);
      const token = query.slice(start, i);
      // GitHub's exclusion, -key:value, would otherwise be searched for as text and find nothing.
      const dashed = /^-([A-Za-z][A-Za-z0-9_.-]*):/.exec(token);
      const dashedKey = dashed && keys.get(dashed[1]!.toLowerCase());
      if (dashedKey) {
        throw new SearchSyntaxError(
          token,
          spec.keys[dashedKey]!.negatable
            ? `to exclude, write !${token.slice(1)}; to find the text, quote it`
            : `${dashedKey}: cannot be excluded; to find the text, quote it`,
        );
      }
      terms.push({ kind: 'text', value: token, token });
      continue;
    }
    i = KEY.lastIndex;
    let value: string;
    let quoted = false;
    if (query[i] === '"') {
      const read = readQuoted(query, i);
      ({ value, end: i } = read);
      quoted = true;
    } else {
      const end = wordEnd(query, i);
      value = query.slice(i, end);
      i = end;
    }
    const token = query.slice(start, i);
    const negated = key[1] === '!';
    const typed = key[2]!;
    const known = keys.get(typed.toLowerCase());
    if (!known) {
      // "TypeError: x is undefined" is text, not a filter: an unknown word ending in a colon
      // with nothing after it stays free text, as it was before the syntax existed.
      if (value === '' && !quoted && !negated) {
        terms.push({ kind: 'text', value: token, token });
        continue;
      }
      const refusal = spec.refused && (ownValue(spec.refused, typed) ?? ownValue(spec.refused, typed.toLowerCase()));
      if (refusal) throw new SearchSyntaxError(token, refusal);
    }
    const name = known ?? (spec.otherKeys ? typed : undefined);
    if (!name) {
      throw new SearchSyntaxError(
        token,
        `unknown key "${typed}"; keys: ${Object.keys(spec.keys).join(', ')}. ` +
          `To find text with a colon in it, quote it: ${JSON.stringify(JSON.stringify(token))}`,
      );
    }
    const rule = known ? spec.keys[name]! : spec.otherKeys!;
    if (value === '') {
      throw new SearchSyntaxError(
        token,
        `${name}: needs a value, e.g. ${name}:${rule.values?.[0] ?? 'value'} (quote one with spaces)`,
      );
    }
    if (negated && !rule.negatable) throw new SearchSyntaxError(token, `${name}: cannot be negated with !`);
    if (rule.values) {
      const allowed = rule.values.find((v) => v.toLowerCase() === value.toLowerCase());
      if (!allowed) throw new SearchSyntaxError(token, `${name}: takes one of ${rule.values.join(', ')}`);
      value = allowed;
    }
    terms.push({ kind: 'filter', key: name, value, negated, token });
  }
  return terms;
}

/** Every accepted spelling, lowercased, to the spec's name for it. */
function keyIndex(spec: SearchSpec): Map<string, string> {
  const index = new Map<string, string>();
  for (const [name, rule] of Object.entries(spec.keys)) {
    for (const spelling of [name, ...(rule.aliases ?? [])]) index.set(spelling.toLowerCase(), name);
  }
  return index;
}

function wordEnd(query: string, from: number): number {
  let i = from;
  while (i < query.length && !/\s/.test(query[i]!)) i++;
  return i;
}

/** A quoted string from the `"` at `from`; `\"` and `\\` escape. It must end the token. */
function readQuoted(query: string, from: number): { value: string; end: number } {
  let value = '';
  let i = from + 1;
  while (i < query.length) {
    const c = query[i]!;
    if (c === '\\' && (query[i + 1] === '"' || query[i + 1] === '\\')) {
      value += query[i + 1];
      i += 2;
    } else if (c === '"') {
      i++;
      if (i < query.length && !/\s/.test(query[i]!)) {
        const token = query.slice(tokenStart(query, from), wordEnd(query, i));
        throw new SearchSyntaxError(token, 'put a space after the closing quote');
      }
      return { value, end: i };
    } else {
      value += c;
      i++;
    }
  }
  throw new SearchSyntaxError(
    query.slice(tokenStart(query, from)),
    'unterminated quote: close it with " (write \\" for a quote inside)',
  );
}

/** Where the token holding position `at` begins (a quote may follow `key:`). */
function tokenStart(query: string, at: number): number {
  let i = at;
  while (i > 0 && !/\s/.test(query[i - 1]!)) i--;
  return i;
}
