// Request/response over a worker MessagePort: the standalone server's main thread (HTTP) asks
// its backend thread (database, queue, dispatcher) to do things. Errors cross with their name,
// message and code, and domain errors are rebuilt as the same class on the other side.
import type { TransferListItem } from 'node:worker_threads';
import { ErrataError, errorFromCode, type ErrorCode } from '../../core/errors.ts';

interface Request {
  id: number;
  method: string;
  args: unknown;
}

interface Response {
  id: number;
  result?: unknown;
  error?: { message: string; code?: string; errata?: boolean };
}

type Handlers = Record<string, (args: never) => Promise<unknown>>;

/** A Worker, or the parentPort inside one. */
interface Channel {
  postMessage(value: unknown, transfer?: readonly TransferListItem[]): void;
  on(event: string, listener: (value: any) => void): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(private readonly port: Channel) {
    port.on('message', (response: Response) => {
      if (response.id === undefined) return;
      const waiting = this.pending.get(response.id);
      if (!waiting) return;
      this.pending.delete(response.id);
      if (response.error) waiting.reject(rebuild(response.error));
      else waiting.resolve(response.result);
    });
  }

  call<T>(method: string, args: unknown = {}, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.port.postMessage({ id, method, args } satisfies Request, transfer);
      } catch (error) {
        this.pending.delete(id);
        reject(error as Error);
      }
    });
  }

  private gone: Error | undefined;

  /** Fails every call waiting and every later one: the other side is gone. */
  failAll(error: Error): void {
    this.gone = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

export function serveRpc(port: Channel, handlers: Handlers): void {
  port.on('message', async (request: Request) => {
    if (request.method === undefined) return;
    const handler = handlers[request.method];
    let response: Response;
    try {
      if (!handler) throw new Error(`unknown backend method ${request.method}`);
      response = { id: request.id, result: await handler(request.args as never) };
    } catch (error) {
      const e = error as Error & { code?: unknown };
      response = {
        id: request.id,
        error: {
          message: e.message,
          ...(typeof e.code === 'string' ? { code: e.code } : {}),
          ...(error instanceof ErrataError ? { errata: true } : {}),
        },
      };
    }
    try {
      port.postMessage(response);
    } catch (error) {
      // A result that cannot cross the thread boundary is reported as an error instead.
      port.postMessage({
        id: request.id,
        error: { message: `backend result of ${request.method} could not be sent: ${(error as Error).message}` },
      });
    }
  });
}

function rebuild(error: NonNullable<Response['error']>): Error {
  if (error.errata && error.code) return errorFromCode(error.code as ErrorCode, error.message);
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

/** One-way messages on the same channel, under a name: for peers that only announce things. */
export function notifications<T>(
  channel: Channel,
  name: string,
): { send(data: T): void; onMessage(handler: (data: T) => void): void } {
  return {
    send: (data) => channel.postMessage({ notify: name, data }),
    onMessage: (handler) =>
      void channel.on('message', (message: { notify?: string; data?: T }) => {
        if (message.notify === name) handler(message.data as T);
      }),
  };
}
