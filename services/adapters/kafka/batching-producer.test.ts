// What the producer keeps of a publish that timed out while the broker does not answer: nothing
// of its records. The broker here is a TCP server that accepts connections and never answers,
// as a broker stuck in an outage does.
import { createServer, type Server, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BatchingProducer, ProduceTimeoutError } from './batching-producer.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let silent: Server;
let broker: string;
const connections = new Set<Socket>();
beforeAll(async () => {
  silent = createServer((socket) => connections.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  broker = `127.0.0.1:${(silent.address() as { port: number }).port}`;
});
/** The outage ends as a refusal: the producer's stuck attempt fails, and it can close. */
function endOutage(): Promise<void> {
  const closed = new Promise<void>((resolve) => silent.close(() => resolve()));
  for (const socket of connections) socket.destroy();
  return closed;
}
afterAll(() => (silent.listening ? endOutage() : undefined));

it('lets go of the records of a publish that timed out while the producer is still connecting', async () => {
  const producer = new BatchingProducer(
    { clientId: 'errata-test', brokers: [broker], timeoutMs: 10_000 },
    { ackTimeoutMs: 1_000, maxRequestBytes: 1 << 20, minRequestIntervalMs: 0 },
  );
  let value: Buffer | undefined = Buffer.alloc(4 << 20, 1);
  const record = new WeakRef(value);
  const sent = producer.send('events', [{ key: 'k', value }], 100);
  value = undefined;
  await expect(sent).rejects.toBeInstanceOf(ProduceTimeoutError);
  // The send loop is still connecting (for up to 10 s) with the publish in its batch.
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
  }
  expect(record.deref()).toBeUndefined();
  await endOutage();
  await producer.close(new Error('the test is over'));
}, 30_000);
