// npm run bench:upload-abuse — what one upload token can make a
// standalone server spend (issue 14): first the peak resident set while a valid bundle of 256
// files of ~1 MiB each (~1 KB each compressed) is assembled; then one chunk POST of 64 distinct gzip bombs (each inflates
// to 8 MiB), the disk the chunks then take, and the server's peak resident set while two
// assemblies of those chunks with invented checksums run at once, then while one with their true
// checksum (a 512 MiB bundle that is no ZIP) runs; then the server's CPU time for one assembly
// that lists one stored gzip chunk (8 KB, 8 MiB inflated) 128 times under an invented checksum,
// and for one with its true checksum whose 9,996 files lie in three gzip chunks of zeros and are
// listed cycling through them (test/support/cycling-bundle.ts). Prints figures; asserts nothing.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { peakRssMb } from './load.ts';
import { cyclingBundle } from '../support/cycling-bundle.ts';
import { makeBundle } from '../support/zip-writer.ts';
import { runCliJson, startServer, stopAndRemove } from '../support/standalone-server.ts';
import { processCpuSeconds } from './thread-cpu.ts';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 64);
const FILES = Number(process.env.BENCH_FILES ?? 256);
const MiB = 1024 * 1024;

const server = await startServer();
const pid = server.child.pid!;
/** The server's user + system CPU seconds. */
const cpuSeconds = () => processCpuSeconds(pid);
const rssMb = () =>
  Number(/VmRSS:\s+(\d+) kB/.exec(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }))?.[1]) / 1024;
try {
  await runCliJson(['createproject', '--name', 'web'], server.env);
  const token = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', 'web'], server.env)).plaintext;
  const org = `${server.url}/api/0/organizations/any`;
  const auth = { authorization: `Bearer ${token}` };

  // First, while the server's peak is its own: a valid bundle of FILES files of ~1 MiB each (under
  // the ratio check's exemption), ~1 KB each compressed, every one with a debug id of its own.
  // Before an assembly stored each file as it read it, all of them were held until the last.
  const files = Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => {
      const id = `${randomBytes(4).toString('hex')}-0000-4000-8000-${String(i).padStart(12, '0')}`;
      return [
        `files/_/_/f${i}.js`,
        { type: 'minified_source', url: `~/f${i}.js`, headers: { 'debug-id': id }, content: 'x'.repeat(MiB - 4096) },
      ];
    }),
  );
  const zeroes = Buffer.from(makeBundle(files));
  const zeroesName = createHash('sha1').update(zeroes).digest('hex');
  const zeroesForm = new FormData();
  zeroesForm.append('file_gzip', new Blob([gzipSync(zeroes)]), zeroesName);
  await fetch(`${org}/chunk-upload/`, { method: 'POST', headers: auth, body: zeroesForm });
  const startPeak = peakRssMb(pid);
  const stored = await assembleOnce(org, auth, zeroesName, [zeroesName]);
  console.log(
    `a valid bundle of ${FILES} files of ~1 MiB (${(zeroes.length / 1024).toFixed(0)} KB): ${stored}; ` +
      `peak RSS ${startPeak.toFixed(0)} MiB before it, ${peakRssMb(pid).toFixed(0)} MiB after`,
  );

  // 8 MiB of zeros after a distinct 8-byte prefix: distinct SHA-1s, ~8 KB of gzip each.
  const form = new FormData();
  const names: string[] = [];
  const whole = createHash('sha1');
  let sent = 0;
  for (let i = 0; i < CHUNKS; i++) {
    const chunk = Buffer.alloc(8 * MiB);
    chunk.writeBigUInt64BE(BigInt(i + 1));
    const name = createHash('sha1').update(chunk).digest('hex');
    whole.update(chunk);
    const gz = gzipSync(chunk);
    sent += gz.length;
    names.push(name);
    form.append('file_gzip', new Blob([gz]), name);
  }
  const posted = await fetch(`${org}/chunk-upload/`, { method: 'POST', headers: auth, body: form });
  const blobsBytes = Number(execFileSync('du', ['-sb', join(server.dataDir, 'blobs')], { encoding: 'utf8' }).split('\t')[0]);
  console.log(
    `chunk POST: ${CHUNKS} gzip parts, ${(sent / 1024).toFixed(0)} KB sent -> ${posted.status}; <data dir>/blobs holds ${(blobsBytes / MiB).toFixed(1)} MiB`,
  );

  const before = { rss: rssMb(), peak: peakRssMb(pid) };
  const invented = [randomBytes(20).toString('hex'), randomBytes(20).toString('hex')];
  const assemble = async (checksum: string) => {
    const response = await fetch(`${org}/artifactbundle/assemble/`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ checksum, chunks: names, projects: ['web'] }),
    });
    return (await response.json()) as { state: string; detail: string | null };
  };
  const run = async (checksums: string[]) => {
    const started = performance.now();
    const cpuBefore = cpuSeconds();
    const first = await Promise.all(checksums.map(assemble));
    const final: Array<{ state: string; detail: string | null }> = [];
    for (const checksum of checksums) {
      for (;;) {
        const polled = await assemble(checksum);
        if (polled.state === 'error' || polled.state === 'ok') {
          final.push(polled);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds() - cpuBefore;
    return `first answers ${first.map((r) => r.state).join(', ')}; finished in ${seconds.toFixed(1)} s (server CPU ${cpu.toFixed(2)} s): ${final.map((r) => `${r.state} (${r.detail?.slice(0, 70)})`).join('; ')}`;
  };
  console.log(`two assemblies, invented checksums: ${await run(invented)}`);
  console.log(
    `server RSS before the assemblies ${before.rss.toFixed(0)} MiB (peak so far ${before.peak.toFixed(0)} MiB); ` +
      `peak RSS after them ${peakRssMb(pid).toFixed(0)} MiB`,
  );
  console.log(`one assembly, the true checksum: ${await run([whole.digest('hex')])}`);
  console.log(`peak RSS after it ${peakRssMb(pid).toFixed(0)} MiB`);

  // One chunk listed 128 times (1 GiB, the largest bundle by default) under an invented checksum.
  const bomb = Buffer.alloc(8 * MiB);
  bomb.write('repeated');
  const bombName = createHash('sha1').update(bomb).digest('hex');
  const single = new FormData();
  single.append('file_gzip', new Blob([gzipSync(bomb)]), bombName);
  await fetch(`${org}/chunk-upload/`, { method: 'POST', headers: auth, body: single });
  names.splice(0, names.length, ...Array.from({ length: 128 }, () => bombName));
  console.log(`one chunk listed 128 times, invented checksum: ${await run([randomBytes(20).toString('hex')])}`);

  // 3 x 3,332 files and 3 pads (10,000 entries with the manifest, the most allowed), listed cycling
  // through the three chunks they lie in; no debug ids, so every file is read and none stored.
  const { bundle: cycling } = cyclingBundle({ chunkSize: 8 * MiB, regions: 3, filesPerRegion: 3332, debugIds: false });
  const cyclingForm = new FormData();
  const cyclingNames: string[] = [];
  let cyclingSent = 0;
  for (let at = 0; at < cycling.length; at += 8 * MiB) {
    const chunk = cycling.subarray(at, at + 8 * MiB);
    const gz = gzipSync(chunk);
    cyclingSent += gz.length;
    cyclingNames.push(createHash('sha1').update(chunk).digest('hex'));
    cyclingForm.append('file_gzip', new Blob([gz]), cyclingNames.at(-1)!);
  }
  await fetch(`${org}/chunk-upload/`, { method: 'POST', headers: auth, body: cyclingForm });
  names.splice(0, names.length, ...cyclingNames);
  const cyclingChecksum = createHash('sha1').update(cycling).digest('hex');
  console.log(
    `9,996 files cycling through 3 chunks (${cyclingNames.length} chunks, ${(cyclingSent / 1024).toFixed(0)} KB of gzip), ` +
      `true checksum: ${await run([cyclingChecksum])}`,
  );
} finally {
  await stopAndRemove(server);
}

/** Assembles a bundle and polls until it is done; its final state and detail. */
async function assembleOnce(org: string, auth: Record<string, string>, checksum: string, chunks: string[]): Promise<string> {
  for (;;) {
    const response = await fetch(`${org}/artifactbundle/assemble/`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ checksum, chunks, projects: ['web'] }),
    });
    const body = (await response.json()) as { state: string; detail: string | null };
    if (body.state === 'ok' || body.state === 'error') return `${body.state}${body.detail ? ` (${body.detail})` : ''}`;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
