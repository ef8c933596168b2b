// Reads a Server-Sent Events response as EventSource would, event by event, for tests that hold
// a stream open over plain fetch (the dashboard's live tail) and need to see what it sent.

interface SseEvent {
  event: string;
  data: string;
}

export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(response: Response) {
    if (!response.body) throw new Error(`the answer (${response.status}) has no body to read events from`);
    this.reader = response.body.getReader();
  }

  /** The next event (comments and retry lines skipped); undefined when the stream ended. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const event = parse(block);
        if (event) return event;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Reads on until an event of this name, failing if the stream ends first. */
  async until(name: string): Promise<SseEvent> {
    const seen: string[] = [];
    for (;;) {
      const event = await this.next();
      if (!event) throw new Error(`the stream ended before a "${name}" event; it sent: ${seen.join(', ') || 'nothing'}`);
      if (event.event === name) return event;
      seen.push(event.event);
    }
  }
}

function parse(block: string): SseEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  return data.length > 0 ? { event, data: data.join('\n') } : undefined;
}
