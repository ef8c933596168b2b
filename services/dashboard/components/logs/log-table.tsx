// The Logs page's rows: time, level, message and the attributes chosen as columns. Each
// message is a <details> (no JavaScript needed) that opens onto every attribute; an attribute's
// value adds `key:value` to the search, its name adds it as a column. Every body, key and value
// is captured text from an SDK: preact escapes it, and it only ever lands in text or in a URL.
import { logAttributes } from '../../../core/logs/log-attributes.ts';
import type { LogRecord } from '../../../core/logs/log-record.ts';
import { formatDate } from '../formats.ts';

interface LogTableProps {
  logs: LogRecord[];
  columns: string[];
  /** The page with `key:value` added to the search. */
  addTermHref: (key: string, value: string) => string;
  /** The page with this attribute shown as a column (or, for one shown, without it). */
  columnHref: (key: string, shown: boolean) => string;
  traceHref: (traceId: string) => string;
  zone: string | null;
}

// A key the search syntax can write (`a.b_c-d:`), so adding it to the query reads back the same
// (an empty value cannot be searched for: `key:""` is refused as a key without a value).
const SEARCHABLE_KEY = /^[A-Za-z][A-Za-z0-9_.-]*$/;

export function LogTable({ logs, columns, addTermHref, columnHref, traceHref, zone }: LogTableProps) {
  return (
    <div class="table-scroll">
      <table class="table log-table">
        <caption class="visually-hidden">Log records, newest first; open a message for its attributes</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Level</th>
            <th scope="col">Message</th>
            {columns.map((column) => (
              <th scope="col" key={column}>
                <span class="log-column-name">{column}</span>{' '}
                <a class="log-column-remove" href={columnHref(column, true)} aria-label={`Remove column ${column}`} title="Remove column">
                  ×
                </a>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {logs.map((log) => {
            const attributes = attributeTexts(log);
            return (
              <tr key={log.id} class={`log-row log-level-${log.level}`}>
                <td class="log-time">
                  <time dateTime={new Date(log.timestamp * 1000).toISOString()}>
                    <span class="log-date">{`${formatDate(new Date(log.timestamp * 1000), { month: 'short', day: 'numeric', timeZone: zone ?? 'UTC' })}, `}</span>
                    {exactTime(log.timestamp, zone)}
                  </time>
                </td>
                <td>
                  <span class="level-badge">{log.level}</span>
                </td>
                <td class="log-message">
                  <details>
                    <summary>{log.body || '(empty message)'}</summary>
                    <dl class="log-attributes">
                      {log.traceId && (
                        <div>
                          <dt>trace</dt>
                          <dd>
                            <a href={addTermHref('trace', log.traceId)} aria-label={`Add trace:${log.traceId} to the search`}>
                              {log.traceId}
                            </a>{' '}
                            <a class="log-trace-link" href={traceHref(log.traceId)}>
                              View trace
                            </a>
                          </dd>
                        </div>
                      )}
                      {log.environment && <Attribute name="environment" value={log.environment} searchKey="environment" {...{ addTermHref }} />}
                      {log.release && <Attribute name="release" value={log.release} {...{ addTermHref }} />}
                      {attributes.map(([key, value]) => (
                        <Attribute
                          key={key}
                          name={key}
                          value={value}
                          searchKey={SEARCHABLE_KEY.test(key) && value !== '' ? key : undefined}
                          columnHref={columns.includes(key) ? undefined : columnHref(key, false)}
                          {...{ addTermHref }}
                        />
                      ))}
                    </dl>
                  </details>
                </td>
                {columns.map((column) => (
                  <td key={column} class="log-column">
                    {attributes.find(([key]) => key === column)?.[1] ?? ''}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Attribute(props: {
  name: string;
  value: string;
  searchKey?: string | undefined;
  columnHref?: string | undefined;
  addTermHref: (key: string, value: string) => string;
}) {
  const { name, value, searchKey, columnHref, addTermHref } = props;
  return (
    <div>
      <dt>
        {columnHref ? (
          <a href={columnHref} aria-label={`Show ${name} as a column`} title="Show as a column">
            {name}
          </a>
        ) : (
          name
        )}
      </dt>
      <dd>
        {searchKey ? (
          <a href={addTermHref(searchKey, value)} aria-label={`Add ${searchKey}:${value} to the search`}>
            {value}
          </a>
        ) : (
          value
        )}
      </dd>
    </div>
  );
}

/** Each attribute as text (strings as they are, anything else as JSON), as search_logs shows them: the SDK's bookkeeping left out. */
function attributeTexts(log: LogRecord): [string, string][] {
  return Object.entries(logAttributes(log))
    .map(([key, value]): [string, string] => [key, typeof value === 'string' ? value : (JSON.stringify(value) ?? '')])
    .sort(([a], [b]) => a.localeCompare(b));
}

function exactTime(seconds: number, zone: string | null): string {
  const date = new Date(seconds * 1000);
  return formatDate(date, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
    hour12: false,
    timeZone: zone ?? 'UTC',
  });
}
