// Where Sentry's hostname parameter matches, found in time linear in the text. Its pattern,
// `\b([a-zA-Z0-9\-]{1,63}\.)+?(TLD)\b`, walks a chain of dot-separated labels from each word
// boundary; on a long chain with no top-level domain at the end ("a.a.a.…") each of the chain's
// starts walks it to its end again, so the regex engine alone is quadratic. Here each position's
// answer is worked out once, from the end of the text back.

const TLDS =
  'COM|NET|ORG|JP|DE|UK|FR|BR|IT|RU|ES|ME|GOV|PL|CA|AU|CN|CO|IN|NL|EDU|INFO|EU|CH|ID|AT|KR|CZ|MX|BE|TV|SE|TR|TW|AL|UA|IR|VN|CL|SK|LY|CC|TO|NO|FI|US|PT|DK|AR|HU|TK|GR|IL|NEWS|RO|MY|BIZ|IE|ZA|NZ|SG|EE|TH|IO|XYZ|PE|BG|HK|RS|LT|LINK|PH|CLUB|SI|SITE|MOBI|BY|CAT|WIKI|LA|GA|XXX|CF|HR|NG|JOBS|ONLINE|KZ|UG|GQ|AE|IS|LV|PRO|FM|TIPS|MS|SA|APP';

/** Sentry's pattern (getsentry/sentry src/sentry/grouping/parameterization.py), as it is. */
export const HOSTNAME_PATTERN = String.raw`\b([a-zA-Z0-9\-]{1,63}\.)+?((${TLDS})|(${TLDS.toLowerCase()}))\b`;

/** A top-level domain and a word boundary after it, tried at one position. */
const TLD_AT = new RegExp(`(?:${TLDS}|${TLDS.toLowerCase()})\\b`, 'y');
const MAX_LABEL = 63;
const DOT = 0x2e;

function isLabelChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x2d;
}

function isWordChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function tldAt(text: string, position: number): boolean {
  TLD_AT.lastIndex = position;
  return TLD_AT.test(text);
}

/**
 * For each position, whether a chain of labels starting there reaches a top-level domain: the
 * label runs to the first character that is not a label character, which must be a dot, within
 * 63 characters; after the dot comes a top-level domain, or another such chain. That is what the
 * pattern accepts after its `\b`: its lazy `+?` tries the domain after each label, then one
 * label more.
 */
function chainsReachingADomain(text: string): Uint8Array {
  const reaches = new Uint8Array(text.length + 1);
  let labelEnd = text.length; // the first non-label character at or after the position
  for (let i = text.length - 1; i >= 0; i--) {
    if (!isLabelChar(text.charCodeAt(i))) {
      labelEnd = i;
      continue;
    }
    if (labelEnd === text.length || text.charCodeAt(labelEnd) !== DOT || labelEnd - i > MAX_LABEL) continue;
    reaches[i] = tldAt(text, labelEnd + 1) || reaches[labelEnd + 1] === 1 ? 1 : 0;
  }
  return reaches;
}

/**
 * A finder of the first position at or after `from` where the hostname pattern matches, or -1.
 * Calls must not go backwards (`from` never less than before), which keeps the whole scan linear.
 */
export function hostnameStarts(text: string): (from: number) => number {
  if (!text.includes('.')) return () => -1;
  const reaches = chainsReachingADomain(text);
  let next = 0;
  return (from) => {
    next = Math.max(next, from);
    for (; next < text.length; next++) {
      if (reaches[next] !== 1) continue;
      const before = next > 0 && isWordChar(text.charCodeAt(next - 1));
      if (before !== isWordChar(text.charCodeAt(next))) return next;
    }
    return -1;
  };
}
