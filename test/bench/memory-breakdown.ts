// Where a standalone server's resident memory goes, from /proc/<pid>/smaps and its own
// errata_thread_heap_bytes gauge: the WebAssembly database (PGlite's linear memory: it starts at
// 128 MiB and only grows, and no other read-write anonymous mapping of the process is that large;
// only its touched pages are resident), the two JavaScript heaps, the code of node and its libraries (file-backed), and
// the rest (malloc: buffers, zlib state, V8's own tables).
import { readFileSync } from 'node:fs';

const WASM_MEMORY_MIN_KB = 128 * 1024;

interface Mapping {
  sizeKb: number;
  rssKb: number;
  file: boolean;
  anonymousReadWrite: boolean;
}

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
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

/** One line: RSS and its parts in MB. `heaps` is total V8 heap bytes by thread, from /metrics. */
export function describeMemory(pid: number, heaps: Record<string, number>): string {
  const all = mappings(pid);
  const mb = (kb: number) => (kb / 1024).toFixed(0);
  const rss = all.reduce((s, m) => s + m.rssKb, 0);
  const wasm = all.filter((m) => m.anonymousReadWrite && m.sizeKb >= WASM_MEMORY_MIN_KB).reduce((s, m) => s + m.rssKb, 0);
  const files = all.filter((m) => m.file).reduce((s, m) => s + m.rssKb, 0);
  const heapKb = Object.values(heaps).reduce((s, b) => s + b / 1024, 0);
  const heapParts = Object.entries(heaps)
    .map(([thread, bytes]) => `${thread} ${mb(bytes / 1024)}`)
    .join(' + ');
  const rest = rss - wasm - files - heapKb;
  return `RSS ${mb(rss)} MB = WebAssembly database ${mb(wasm)} + JavaScript heaps ${mb(heapKb)} (${heapParts}) + code of node and libraries ${mb(files)} + other allocations ${mb(rest)}`;
}

/** Total V8 heap bytes per thread, read from errata_thread_heap_bytes{kind="total"} on /metrics. */
export async function heapTotals(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^errata_thread_heap_bytes\{thread="([^"]+)",kind="total"\} (\S+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}
