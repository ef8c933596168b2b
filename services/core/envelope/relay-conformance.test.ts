// Envelope framing, behaviour by behaviour, against Sentry's Relay (getsentry/relay,
// relay-server/src/envelope/mod.rs `parse_headers`/`parse_items` and item.rs `Item::parse`).
// Relay reads each header with serde_json's stream reader, which skips JSON whitespace (" ",
// "\t", "\r", "\n") before a value; `require_termination` then wants "\n" or the end right
// after the header's closing brace and after a payload of declared length. Each row: the bytes,
// Relay's verdict and where it says so, and what parseEnvelope does. A row where Errata
// deliberately differs says why in `deviation`. How the header's dsn and origin are held
// against the request has its own table: services/ingest/relay-request-conformance.test.ts.
import { describe, expect, it } from 'vitest';
import { EnvelopeFramingError, parseEnvelope } from './parse-envelope.ts';

type Items = Array<[type: string, payload: string]>;

interface Row {
  behaviour: string;
  bytes: string | Buffer;
  relay: 'accepts' | 'refuses';
  /** The Relay test or code that gives the verdict. */
  source: string;
  /** What parseEnvelope returns: the items' types and payloads, or the message it refuses with. */
  errata: Items | RegExp;
  deviation?: string;
}

const H = '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}';
const EVENT = '{"message":"boom","event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}';
const REPORT = '{"timestamp":1700000000,"discarded_events":[]}';

const rows: Row[] = [
  {
    behaviour: 'an empty line between items (event without length, then a client_report), the layout an SDK sent',
    bytes: `${H}\n{"type":"event"}\n${EVENT}\n\n{"type":"client_report"}\n${REPORT}\n`,
    relay: 'accepts',
    source: 'item.rs Item::parse: serde_json StreamDeserializer skips leading whitespace before the item header',
    errata: [
      ['event', EVENT],
      ['client_report', REPORT],
    ],
  },
  {
    behaviour: 'an empty line between items, event with explicit length',
    bytes: `${H}\n{"type":"event","length":${EVENT.length}}\n${EVENT}\n\n{"type":"client_report"}\n${REPORT}\n`,
    relay: 'accepts',
    source: 'item.rs Item::parse: require_termination after the payload, then whitespace skipped before the next header',
    errata: [
      ['event', EVENT],
      ['client_report', REPORT],
    ],
  },
  {
    behaviour: 'several empty lines, spaces, tabs and "\\r\\n" before an item header',
    bytes: `${H}\n{"type":"event"}\n{}\n\n \t\r\n\n{"type":"log"}\n{"items":[]}\n`,
    relay: 'accepts',
    source: 'item.rs Item::parse: StreamDeserializer skips " ", "\\t", "\\r", "\\n" before a value',
    errata: [
      ['event', '{}'],
      ['log', '{"items":[]}'],
    ],
  },
  {
    behaviour: 'whitespace and empty lines before the envelope header',
    bytes: `\n  ${H}\n{"type":"event"}\n{}\n`,
    relay: 'accepts',
    source: 'mod.rs Envelope::parse_headers: the same stream reader',
    errata: [['event', '{}']],
  },
  {
    behaviour: 'a header spread over several lines (whitespace inside the JSON)',
    bytes: `{\n"event_id": "9ec79c33ec9942ab8353589fcb2e04dc"\n}\n{"type":\n"event"}\n{}\n`,
    relay: 'accepts',
    source: 'mod.rs parse_headers / item.rs Item::parse: one JSON value is read, whatever its whitespace',
    errata: [['event', '{}']],
  },
  {
    behaviour: 'two empty attachments of length 0, separated by the newline that ends the first',
    bytes: `${H}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}\n`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_empty_item_newline',
    errata: [
      ['attachment', ''],
      ['attachment', ''],
    ],
  },
  {
    behaviour: 'length 0 on the last item, with no newline after its header',
    bytes: `${H}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_empty_item_eof',
    errata: [
      ['attachment', ''],
      ['attachment', ''],
    ],
  },
  {
    behaviour: 'length 0 directly followed by the next header (no newline)',
    bytes: `${H}\n{"type":"attachment","length":0}\n{"type":"attachment","length":0}\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: require_termination(slice, payload_end) -> MissingNewline',
    errata: /item 1 \(attachment\): expected a newline after its 0-byte payload/,
  },
  {
    behaviour: 'a header-only envelope without a newline',
    bytes: H,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_empty',
    errata: [],
  },
  {
    behaviour: 'a header-only envelope with a newline',
    bytes: `${H}\n`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_empty_newline',
    errata: [],
  },
  {
    behaviour: 'a header followed by an empty line and nothing else',
    bytes: `${H}\n\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: stream.next() is None -> UnexpectedEof',
    errata: /unexpected end of the envelope: only whitespace follows the envelope header/,
  },
  {
    behaviour: 'an empty line after the last item',
    bytes: `${H}\n{"type":"event"}\n{}\n\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: stream.next() is None -> UnexpectedEof',
    errata: /unexpected end of the envelope: only whitespace follows item 1/,
  },
  {
    behaviour: 'an item without length ending at a newline',
    bytes: `${H}\n{"type":"attachment"}\nhelloworld\n`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_implicit_length',
    errata: [['attachment', 'helloworld']],
  },
  {
    behaviour: 'an item without length ending at the end of the body (no final newline)',
    bytes: `${H}\n{"type":"attachment"}\nhelloworld`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_implicit_length_eof',
    errata: [['attachment', 'helloworld']],
  },
  {
    behaviour: 'an item header without length at the very end (empty payload)',
    bytes: `${H}\n{"type":"attachment"}`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_implicit_length_empty_eof',
    errata: [['attachment', '']],
  },
  {
    behaviour: '"length": null, read as no length',
    bytes: `${H}\n{"type":"event","length":null}\n{}\n`,
    relay: 'accepts',
    source: 'item.rs ItemHeaders: length is Option<u32>, and serde reads null as None',
    errata: [['event', '{}']],
  },
  {
    behaviour: 'explicit lengths with a BOM, "\\r\\n" and newlines inside the payload',
    bytes: Buffer.concat([
      Buffer.from(`${H}\n{"type":"attachment","length":10}\n`),
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('Hello\r\n\n{"type":"event","length":2}\n{}\n'),
    ]),
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_multiple_items',
    errata: [
      ['attachment', '\ufeffHello\r\n'],
      ['event', '{}'],
    ],
  },
  {
    behaviour: 'a "\\r" before the newline of an item without length stays in the payload',
    bytes: `${H}\n{"type":"event"}\n{}\r\n`,
    relay: 'accepts',
    source: 'item.rs Item::parse: the payload ends at the position of b"\\n"',
    errata: [['event', '{}\r']],
  },
  {
    behaviour: 'a length longer than what follows',
    bytes: `${H}\n{"type":"event","length":50}\n{}\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: bytes.len() < payload_end -> UnexpectedEof',
    errata: /declares length 50 but only 3 bytes follow its header/,
  },
  {
    behaviour: 'a length shorter than the payload',
    bytes: `${H}\n{"type":"event","length":1}\n{}\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: require_termination(slice, payload_end) -> MissingNewline',
    errata: /expected a newline after its 1-byte payload/,
  },
  {
    behaviour: 'trailing garbage right after the last payload of declared length',
    bytes: `${H}\n{"type":"event","length":2}\n{}garbage`,
    relay: 'refuses',
    source: 'item.rs Item::parse: require_termination -> MissingNewline',
    errata: /expected a newline after its 2-byte payload/,
  },
  {
    behaviour: 'a trailing line of garbage after the last item',
    bytes: `${H}\n{"type":"event"}\n{}\ngarbage\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: stream.next() is Err -> InvalidItemHeader',
    errata: /item 2 header is not valid JSON/,
  },
  {
    behaviour: 'CRLF line ends after the headers',
    bytes: `${H}\r\n{"type":"event"}\r\n{}\r\n`,
    relay: 'refuses',
    source: 'mod.rs require_termination: the byte after the header is "\\r", not "\\n" -> MissingNewline',
    errata: /envelope header ends with "\\r\\n": end each header with "\\n" alone/,
  },
  {
    behaviour: 'CRLF after an item header',
    bytes: `${H}\n{"type":"event"}\r\n{}\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse: require_termination(slice, headers_end) -> MissingNewline',
    errata: /item 1 header ends with "\\r\\n"/,
  },
  {
    behaviour: 'a space between a header and its newline',
    bytes: `${H} \n{"type":"event"}\n{}\n`,
    relay: 'refuses',
    source: 'mod.rs require_termination -> MissingNewline',
    errata: /envelope header is followed by other bytes on its line/,
  },
  {
    behaviour: 'an empty body',
    bytes: '',
    relay: 'refuses',
    source: 'endpoints/envelope.rs: an empty body is BadStoreRequest::EmptyBody',
    errata: /empty request body/,
  },
  {
    behaviour: 'a body of whitespace only',
    bytes: '\n \n',
    relay: 'refuses',
    source: 'mod.rs parse_headers: stream.next() is None -> MissingHeader',
    errata: /missing envelope header/,
  },
  {
    behaviour: 'an item header without "type"',
    bytes: `${H}\n{"length":2}\n{}\n`,
    relay: 'refuses',
    source: 'item.rs ItemHeaders: `type` is a required field -> InvalidItemHeader',
    errata: /item 1 header has no "type"/,
  },
  {
    behaviour: 'an unknown item type, and an empty one',
    bytes: `${H}\n{"type":"invalid_unknown"}\nhelloworld\n{"type":""}\n{}\n`,
    relay: 'accepts',
    source: 'mod.rs test_deserialize_envelope_unknown_item; ItemType::from_str maps any other string to Unknown',
    errata: [
      ['invalid_unknown', 'helloworld'],
      ['', '{}'],
    ],
  },
  {
    behaviour: 'a negative length',
    bytes: `${H}\n{"type":"event","length":-1}\n{}\n`,
    relay: 'refuses',
    source: 'item.rs ItemHeaders: length is Option<u32> -> InvalidItemHeader',
    errata: /invalid "length"/,
  },
  {
    behaviour: 'an item header that is not a JSON object',
    bytes: `${H}\n["event"]\n{}\n`,
    relay: 'refuses',
    source: 'item.rs Item::parse -> InvalidItemHeader',
    errata: /item 1 header must be a JSON object/,
  },
  {
    behaviour: 'a header string that is not UTF-8',
    bytes: Buffer.concat([Buffer.from('{"sdk":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]),
    relay: 'refuses',
    source: 'mod.rs parse_headers: serde_json::Deserializer::from_slice validates UTF-8 in strings -> InvalidHeader',
    errata: /envelope header is not valid JSON/,
  },
  {
    behaviour: 'a byte-order mark before the envelope header',
    bytes: `\ufeff${H}\n`,
    relay: 'refuses',
    source: 'mod.rs parse_headers: a BOM is not JSON whitespace -> InvalidHeader',
    errata: /envelope header is not valid JSON/,
  },
  {
    behaviour: 'a "type" given twice in one item header',
    bytes: `${H}\n{"type":"attachment","type":"event"}\n{}\n`,
    relay: 'refuses',
    source: "item.rs ItemHeaders derives Deserialize: a repeated field is serde's duplicate_field error",
    errata: [['event', '{}']],
    deviation: 'JSON.parse keeps the last value; no SDK repeats a header field, and refusing needs a second JSON parser',
  },
];

function verdictOf(bytes: string | Buffer): Items | Error {
  try {
    const envelope = parseEnvelope(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
    return envelope.items.map((item) => [item.headers.type, item.payload.toString('utf8')]);
  } catch (error) {
    return error as Error;
  }
}

describe('envelope framing conforms to Relay', () => {
  it.each(rows)('$behaviour: Relay $relay ($source)', (row) => {
    const result = verdictOf(row.bytes);
    if (row.errata instanceof RegExp) {
      expect(result).toBeInstanceOf(EnvelopeFramingError);
      expect((result as Error).message).toMatch(row.errata);
    } else {
      expect(result).toEqual(row.errata);
    }
    const errataVerdict = result instanceof Error ? 'refuses' : 'accepts';
    if (row.deviation) expect(errataVerdict).not.toBe(row.relay);
    else expect(errataVerdict).toBe(row.relay);
  });
});
