// The backing servers, as pods see them: started by test/infra/cluster-up.sh with the pods'
// bridge gateway address, it listens there on each server's port and forwards every connection
// to the same port on loopback, where infra:up keeps the servers. Pods cannot reach loopback
// (the kubelet's KUBE-FIREWALL chain drops non-loopback packets to 127.0.0.0/8), and this keeps
// the servers off every other interface. Kafka also advertises a listener at this address
// (test/infra/up.sh), whose loopback side is the port forwarded here.
import { connect, createServer } from 'node:net';

/** Postgres, ClickHouse (HTTP), Kafka (the listener advertised to pods), MinIO; as in up.sh. */
const PORTS = [15432, 18123, 19094, 19900];

const gateway = process.argv[2];
if (!gateway) throw new Error('usage: pod-gateway.ts <gateway address>');

await Promise.all(
  PORTS.map(
    (port) =>
      new Promise<void>((resolve, reject) => {
        const server = createServer((client) => {
          const upstream = connect(port, '127.0.0.1');
          client.pipe(upstream).pipe(client);
          upstream.on('error', () => client.destroy());
          client.on('error', () => upstream.destroy());
        });
        server.once('error', reject);
        server.listen(port, gateway, resolve);
      }),
  ),
);
console.log(`listening on ${gateway}: ${PORTS.join(', ')}`);
