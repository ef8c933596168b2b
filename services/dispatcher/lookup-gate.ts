// At most a few receiver lookups at once. dns.lookup runs on libuv's pool of 4 threads, which
// the queue's file writes and zlib share; a lookup the 10-second deadline gave up on still holds
// its thread until the resolver gives up. Channels on a domain whose name server never answers
// filled the pool, and every file read of the process waited behind them.
import type { LookupAddress, LookupAllOptions } from 'node:dns';

type Callback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
type LookupAll = (hostname: string, options: LookupAllOptions, callback: Callback) => void;

/** `lookup` with at most `max` calls unanswered at once; the others wait their turn, in order. */
export function gatedLookup(lookup: LookupAll, max: number): LookupAll {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  return (hostname, options, callback) => {
    const start = () => {
      inFlight++;
      lookup(hostname, options, (error, addresses) => {
        inFlight--;
        waiting.shift()?.();
        callback(error, addresses);
      });
    };
    if (inFlight < max) start();
    else waiting.push(start);
  };
}
