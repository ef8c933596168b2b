// The live tail's island (pages/log-tail.tsx): shows the tail's box, opens its Server-Sent Events
// stream with EventSource and appends each record as a row, newest at the bottom, following the
// bottom while the reader is there. Record text is untrusted: it goes in with textContent only.
// The server ends a tail that pauses, stops or is refused with an event saying why; the stream is
// then closed here (EventSource would reconnect) and the one button offers to start from now.

interface TailRow {
  id: string;
  timestamp: string;
  level: string;
  body: string;
  traceId: string | null;
}

type State = 'running' | 'ended';

export function logTail(): void {
  const box = document.querySelector<HTMLElement>('[data-log-tail]');
  if (!box) return;
  const url = box.dataset.logTail!;
  const maxRows = Number(box.dataset.maxRows) || 500;
  const status = box.querySelector<HTMLElement>('.log-tail-status')!;
  const button = box.querySelector<HTMLButtonElement>('.log-tail-action')!;
  const rows = box.querySelector<HTMLOListElement>('.log-tail-rows')!;
  const time = new Intl.DateTimeFormat(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
    hourCycle: 'h23',
    ...(box.dataset.zone ? { timeZone: box.dataset.zone } : {}),
  });
  box.hidden = false;

  let source: EventSource | undefined;
  let shown = 0;

  const setState = (state: State, label: string) => {
    button.dataset.state = state;
    button.textContent = label;
  };
  const end = (message: string, label: string) => {
    source?.close();
    source = undefined;
    status.textContent = message;
    box.dataset.ended = '';
    setState('ended', label);
  };
  const append = (record: TailRow) => {
    const atBottom = rows.scrollTop + rows.clientHeight >= rows.scrollHeight - 4;
    const item = document.createElement('li');
    item.className = `log-tail-row level-${record.level}`;
    const when = document.createElement('time');
    when.dateTime = record.timestamp;
    when.textContent = time.format(new Date(record.timestamp));
    const level = document.createElement('span');
    level.className = 'log-tail-level';
    level.textContent = record.level;
    const body = document.createElement('span');
    body.className = 'log-tail-body';
    body.textContent = record.body;
    item.append(when, level, body);
    if (record.traceId) item.title = `trace ${record.traceId}`;
    rows.append(item);
    while (rows.childElementCount > maxRows) rows.firstElementChild!.remove();
    shown += 1;
    status.textContent = `Live: ${shown} ${shown === 1 ? 'record' : 'records'} since the tail started.`;
    if (atBottom) rows.scrollTop = rows.scrollHeight;
  };
  const message = (event: Event) => (JSON.parse((event as MessageEvent<string>).data) as { message: string }).message;

  const start = () => {
    delete box.dataset.ended;
    shown = 0;
    status.textContent = 'Connecting…';
    setState('running', 'Stop');
    const opened = new EventSource(url);
    source = opened;
    opened.addEventListener('started', () => {
      box.dataset.live = '';
      status.textContent = 'Live: waiting for records…';
    });
    opened.addEventListener('record', (event) => append(JSON.parse((event as MessageEvent<string>).data) as TailRow));
    opened.addEventListener('paused', (event) => end(message(event), 'Resume'));
    opened.addEventListener('stopped', (event) => end(message(event), 'Start again'));
    opened.addEventListener('refused', (event) => end(message(event), 'Try again'));
    opened.addEventListener('failed', (event) => end(message(event), 'Start again'));
    opened.addEventListener('error', () => {
      // CONNECTING: EventSource reconnects by itself (a restart); CLOSED: it gave up, e.g. the
      // session ended and the stream answered with the sign-in page.
      if (opened.readyState === EventSource.CLOSED && source === opened) {
        end('The live tail lost its connection (signed out, or the server is away). Start again, or reload the page.', 'Start again');
      } else if (source === opened) {
        status.textContent = 'Reconnecting…';
      }
    });
  };

  button.addEventListener('click', () => {
    if (button.dataset.state === 'running') end('Stopped. The records shown stay here.', 'Start again');
    else start();
  });
  start();
}
