// Where a standalone server's resident memory goes, from /proc/<pid>/smaps and its own
// errata_thread_heap_bytes gauge: the WebAssembly database (PGlite's linear memory: it starts at
// 128 MiB and only grows, and no other read-write anonymous mapping of the process is that large;
// only its touched pages are resident), the two JavaScript heaps, the code of node and its libraries (file-backed), and
// the rest (malloc: buffers, zlib state, V8's own tables).
import { readFile } from 'node:fs/promises';

const WASM_MEMORY_MIN_KB = 128 * 1024;

interface Mapping {
  sizeKb: number;
  rssKb: number;
  file: boolean;
  anonymousReadWrite: boolean;
}

// Read asynchronously: the benchmark samples it while its own open loop sends.
async function mappings(pid: number): Promise<Mapping[]> {
  const out: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of (await readFile(`/proc/${pid}/smaps`, 'utf8')).split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const file = header[2] !== '0' && header[3]!.startsWith('/');
      current = { sizeKb: 0, rssKb: 0, file, anonymousReadWrite: !file && header[3] === '' && header[1] === 'rw-p' };
      out.push(current);
      continue;
    }
    const field = /^(Size|Rss):\s+(\d+) kB/.exec(line);
    if (field && current) current[field[1] === 'Size' ? 'sizeKb' : 'rssKb'] = Number(field[2]);
  }
  return out;
}

/** V8's figures per thread, from errata_thread_heap_bytes on /metrics. */
export interface ThreadMemory {
  /** Total heap bytes. */
  heaps: Record<string, number>;
  /** Bytes of ArrayBuffers and Buffers, which live outside the heap (in malloc's part of RSS). */
  arrayBuffers: Record<string, number>;
}

/** One line of RSS and its parts in MB, and the RSS it adds up (to keep the largest of several samples). */
export interface MemorySample {
  rssKb: number;
  line: string;
}

/**
 * RSS read now, the heaps as `memory` says (read a moment earlier, from /metrics): under load the
 * "other allocations" left over mix two moments, a few MB either way.
 */
export async function memoryBreakdown(pid: number, { heaps, arrayBuffers }: ThreadMemory): Promise<MemorySample> {
  const all = await mappings(pid);
  const mb = (kb: number) => (kb / 1024).toFixed(0);
  const rss = all.reduce((s, m) => s + m.rssKb, 0);
  const wasm = all.filter((m) => m.anonymousReadWrite && m.sizeKb >= WASM_MEMORY_MIN_KB).reduce((s, m) => s + m.rssKb, 0);
  const files = all.filter((m) => m.file).reduce((s, m) => s + m.rssKb, 0);
  const heapKb = Object.values(heaps).reduce((s, b) => s + b / 1024, 0);
  const byThread = (bytes: Record<string, number>) =>
    Object.entries(bytes)
      .map(([thread, n]) => `${thread} ${mb(n / 1024)}`)
      .join(' + ');
  const rest = rss - wasm - files - heapKb;
  const line = `RSS ${mb(rss)} MB = WebAssembly database ${mb(wasm)} + JavaScript heaps ${mb(heapKb)} (${byThread(heaps)}) + code of node and libraries ${mb(files)} + other allocations ${mb(rest)} (array buffers ${byThread(arrayBuffers)})`;
  return { rssKb: rss, line };
}

/** Read from errata_thread_heap_bytes{kind="total"} and {kind="array_buffers"} on /metrics. */
export async function readThreadMemory(url: string): Promise<ThreadMemory> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  const out: ThreadMemory = { heaps: {}, arrayBuffers: {} };
  for (const m of (await response.text()).matchAll(
    /^errata_thread_heap_bytes\{thread="([^"]+)",kind="(total|array_buffers)"\} (\S+)$/gm,
  )) {
    out[m[2] === 'total' ? 'heaps' : 'arrayBuffers'][m[1]!] = Number(m[3]);
  }
  if (Object.keys(out.heaps).length === 0) throw new Error('/metrics has no errata_thread_heap_bytes{thread,kind="total"}');
  return out;
}
