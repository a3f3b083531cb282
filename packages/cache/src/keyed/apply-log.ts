import { newer } from '../coherence/message.js';
import type { Flight } from '../single-flight.js';
import type { LogEntry } from './coherence-log.js';
import type { KeyedCounters, NamespaceEvents } from './events.js';
import type { L1 } from '../core/l1.js';
import type { Entry } from '../core/rows.js';
import type { Waiters } from './waiters.js';

/** What applying the coherence log may touch. */
export interface ApplyTarget {
  readonly l1: L1<Entry<unknown>>;
  readonly counters: KeyedCounters;
  readonly waiters: Waiters;
  /** The load running in this process for `key`, so news reaching it is not overwritten by it. */
  flight(key: string): Flight | undefined;
  flights(): Flight[];
  /** Emits a `coherence` event (only called when a row was dropped). */
  applied(event: NamespaceEvents['coherence']): void;
}

/**
 * Applies coherence log entries in order (newer wins, cache.md §7.2, on keys): a set or delete drops
 * an L1 entry older than its version and marks a running load for the key; a clear drops every
 * older entry; every entry naming a key wakes the callers waiting on that key's lease. Applying an
 * entry twice changes nothing the second time.
 */
export function applyLog(entries: readonly LogEntry[], target: ApplyTarget): void {
  for (const entry of entries) {
    if (entry.op === 'c') {
      let dropped = 0;
      for (const [key, row] of target.l1.entries()) {
        if (newer(entry.version, row.version)) {
          target.l1.delete(key);
          dropped++;
        }
      }
      for (const flight of target.flights()) flight.spoiled = true;
      target.counters.cohApplied += dropped;
      target.applied({ op: 'c', keys: [], dropped });
      continue;
    }
    let dropped = 0;
    for (const key of entry.keys) {
      if (entry.op !== 'r') {
        const flight = target.flight(key);
        if (flight !== undefined && (flight.newest === null || newer(entry.version, flight.newest))) flight.newest = entry.version;
        const row = target.l1.get(key);
        if (row !== undefined && newer(entry.version, row.version)) {
          target.l1.delete(key);
          dropped++;
        }
      }
      target.waiters.wake(key);
    }
    if (entry.op === 'r') continue;
    target.counters.cohApplied += dropped;
    target.counters.cohStale += entry.keys.length - dropped;
    if (dropped > 0) target.applied({ op: entry.op, keys: entry.keys, dropped });
  }
}
