// A native (C, C++, Rust, Swift) function name as Sentry groups it when the SDK sent no separate
// raw name: only the name itself, without return type, argument list, template arguments (kept
// as <T>), `const`/`&` qualifiers, Rust hash suffix or Windows `@N` decoration, so that
//   void Scaleform::GFx::Manager::OnActivated(unsigned long,_GUID const &) const
// groups as `Scaleform::GFx::Manager::OnActivated`.

const RUST_HASH = /::h[a-z0-9]{16}$/;
const WINDOWS_DECORATION = /^@?(.*?)@[0-9]+$/;
const RUST_BLANKET_IMPL = /^([A-Z] as )/;
// Lambda names differ between compilers: gcc {lambda(int)#1}, msvc lambda_<32 hex>, clang $_0.
const LAMBDA = /\{lambda\(.*?\)#\d+\}|\blambda_[a-f0-9]{32}\b|\$_\d+\b/g;
const LAMBDA_AT_START = /^(?:\{lambda\(.*?\)#\d+\}|\blambda_[a-f0-9]{32}\b|\$_\d+\b)/;
const MSVC_ANONYMOUS_NAMESPACE = /\?A0x[a-f0-9]{8}::/g;
const PAIRS: Record<string, string> = { '(': ')', '{': '}', '[': ']', '<': '>' };

// Characters that stand in for brackets that are not brackets (operator<<, operator()) while
// the name is taken apart, and for the spaces of `->` and of MSVC's anonymous namespace.
const PLACEHOLDERS: Array<[string, string]> = [
  ['operator<<', 'operator\u27e8\u27e8'],
  ['operator<', 'operator\u27e8'],
  ['operator()', 'operator\u25ef'],
  [' -> ', ' \u27ff '],
  ["`anonymous namespace'", '\u3014anonymousnamespace\u3015'],
];

export function trimNativeFunctionName(name: string): string {
  if (name === '<redacted>' || name === '<unknown>') return name;
  let fn = name.trim();
  if (fn.startsWith('[') || fn.startsWith('+[') || fn.startsWith('-[')) return fn; // Objective-C
  fn = withoutTrailers(fn);
  for (const [text, stand] of PLACEHOLDERS) fn = fn.split(text).join(stand);
  fn = fn.replace(LAMBDA, 'lambda').replace(MSVC_ANONYMOUS_NAMESPACE, '\u3014anonymousnamespace\u3015::');
  // Arguments go, except the parentheses that are part of a name: "(anonymous namespace)".
  fn = replaceEnclosed(fn, '(', ')', (inner) => {
    const value = inner.trim();
    return value === 'anonymous namespace' || value === 'operator' ? `(${value})` : '';
  });
  fn = replaceEnclosed(fn, '<', '>', genericArguments);
  const tokens = splitTokens(fn);
  // MSVC writes a generic operator's arguments after a space: keep them with the name.
  if (tokens.length > 1 && tokens[tokens.length - 1] === '<T>') {
    tokens.pop();
    tokens[tokens.length - 1] += ' <T>';
  }
  // The name is left of Swift's `->` return marker, else the last token (after any return type).
  const arrow = tokens.indexOf('\u27ff');
  const token = arrow > 0 ? tokens[arrow - 1] : tokens[tokens.length - 1];
  if (!token) return name;
  let result = token;
  for (const [text, stand] of PLACEHOLDERS) result = result.split(stand.trim()).join(text.trim());
  return result.replace(RUST_HASH, '').replace(WINDOWS_DECORATION, '$1');
}

/**
 * The name without trailing `const` and `&` qualifiers, found in one backward scan. Before, a
 * pattern ending in `$` ran again after each one taken off, on a new slice: names of 512 `&`
 * made a native event of 2,000 frames take a third more time to prepare (bench:prepare).
 */
function withoutTrailers(fn: string): string {
  let end = fn.length;
  for (;;) {
    while (end > 0 && isSpace(fn.charCodeAt(end - 1))) end--;
    if (fn.charCodeAt(end - 1) === AMPERSAND) end--;
    else if (fn.endsWith('const', end) && !/\w/.test(fn[end - 6] ?? '')) end -= 5;
    else return fn.slice(0, end);
  }
}

const AMPERSAND = 0x26;

/** What trimEnd takes off: ASCII spaces and controls 9-13 at once, the rest by the pattern. */
const isSpace = (code: number): boolean =>
  code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code > 0x7f && /\s/.test(String.fromCharCode(code)));

/**
 * Rust's `<Type as Trait>` nested within itself, as deep as is taken apart: real names nest two or
 * three deep, and each level reads the whole name again, so 256 levels of `<` (a 512-character
 * name) took 0.7 ms per frame. Deeper ones are template arguments like any other.
 */
const MAX_QUALIFIED_DEPTH = 8;

/** Template arguments become <T>; a leading one is Rust's `<Type as Trait>`, which keeps the type. */
function genericArguments(inner: string, start: number, depth = 0): string {
  if (inner === 'lambda' || LAMBDA_AT_START.test(inner)) return `<${inner}>`;
  if (start > 0 || depth >= MAX_QUALIFIED_DEPTH) return '<T>';
  const deeper = (text: string, at: number) => genericArguments(text, at, depth + 1);
  return replaceEnclosed(inner.replace(RUST_BLANKET_IMPL, ''), '<', '>', deeper).split(' as ')[0]!;
}

/** Replaces each outermost `open ... close` span with what `replace` makes of its inside. */
function replaceEnclosed(text: string, open: string, close: string, replace: (inner: string, start: number) => string): string {
  if (!text.includes(open)) return text;
  let depth = 0;
  let start = 0;
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === open) {
      if (depth === 0) start = index;
      depth++;
    } else if (char === close) {
      depth--;
      if (depth === 0) out += replace(text.slice(start + 1, index), start);
    } else if (depth === 0) {
      out += char;
    }
  }
  return out;
}

/** Splits on spaces outside brackets. */
function splitTokens(text: string): string[] {
  const tokens: string[] = [];
  const closers: string[] = [];
  let current = '';
  for (const char of text) {
    if (PAIRS[char]) closers.push(PAIRS[char]!);
    else if (closers.length > 0 && char === closers[closers.length - 1]) closers.pop();
    if (closers.length === 0 && /\s/.test(char)) {
      if (current) tokens.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current) tokens.push(current);
  return tokens;
}
