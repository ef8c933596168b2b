// Text every store can hold. Postgres refuses a NUL character in text and, in jsonb, the escapes
// JSON.stringify writes for NUL (\u0000) and for lone surrogates (\ud800); ClickHouse refuses
// lone surrogates in JSONEachRow. Both are replaced by U+FFFD rather than refused: ingest does it
// to SDK data (one odd byte must not make an event unstorable), and the SQL client does it to
// every parameter (a search or a note with one must not be a 500), so the two agree.

/**
 * At most `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair: half
 * a pair is a lone surrogate, which the stores keep as U+FFFD, so an emoji at a limit would be
 * stored as a replacement character.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** NUL becomes U+FFFD, and each lone surrogate U+FFFD. */
export function storableText(text: string): string {
  const withoutNul = text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
  return withoutNul.isWellFormed() ? withoutNul : withoutNul.toWellFormed();
}

/**
 * JSON text as jsonb accepts it: each `\u0000` escape and each escape of a lone surrogate is
 * rewritten as `\ufffd`; an escaped pair stays. Backslash pairs are read left to right, so the
 * text `\\u0000` (an escaped backslash, then "u0000") is left alone. Raw NULs and lone
 * surrogates cannot occur in JSON.stringify's output; they are replaced too, for text from
 * elsewhere.
 */
export function storableJsonText(json: string): string {
  const text = storableText(json);
  if (!text.includes('\\u')) return text;
  let out = '';
  let copied = 0;
  for (let i = text.indexOf('\\'); i !== -1 && i < text.length; i = text.indexOf('\\', i)) {
    if (text[i + 1] !== 'u') {
      i += 2; // an escape of one character, `\\` included
      continue;
    }
    const unit = hexUnit(text, i + 2);
    let replace = false;
    let length = 6;
    if (unit === 0) replace = true;
    else if (unit !== undefined && unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.startsWith('\\u', i + 6) ? hexUnit(text, i + 8) : undefined;
      if (next !== undefined && next >= 0xdc00 && next <= 0xdfff) length = 12;
      else replace = true;
    } else if (unit !== undefined && unit >= 0xdc00 && unit <= 0xdfff) replace = true;
    if (replace) {
      out += text.slice(copied, i) + '\\ufffd';
      copied = i + 6;
    }
    i += length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function hexUnit(text: string, at: number): number | undefined {
  const hex = text.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : undefined;
}
