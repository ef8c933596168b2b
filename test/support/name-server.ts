// A DNS server on loopback UDP for tests of name lookups: it notes every question, and answers
// with the addresses it was given for a name (NXDOMAIN for others), or never answers at all.
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

interface NameServer {
  /** Host and port, as dns.Resolver.setServers takes it. */
  address: string;
  /** Every question asked so far, as "A name" or "AAAA name". */
  questions: string[];
  close(): Promise<void>;
}

export async function startNameServer(answers: Record<string, string[]> | 'silent'): Promise<NameServer> {
  const socket: Socket = createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (message, from) => {
    const query = dnsPacket.decode(message);
    for (const question of query.questions ?? []) questions.push(`${question.type} ${question.name}`);
    if (answers === 'silent') return;
    const question = query.questions?.[0];
    const found = question ? (answers[question.name] ?? []) : [];
    const family = question?.type === 'AAAA' ? 6 : 4;
    const matching = found.filter((address) => address.includes(':') === (family === 6));
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (question && question.name in answers ? 0 : 3),
      questions: query.questions,
      answers: matching.map((data) => ({ type: family === 6 ? 'AAAA' : 'A', name: question!.name, ttl: 60, data })),
    });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
