import { newer } from '../coherence/message.js';
import type { LogEntry } from '../coherence/log.js';
import type { Tiers } from './tiers.js';

/**
 * Applies coherence log entries in order (newer wins, cache.md §7.2, on keys): a set or delete drops
 * an L1 entry older than its version and marks a running load for the key; a clear drops every
 * older entry; every entry naming a key wakes the callers waiting on that key's lease. Applying an
 * entry twice changes nothing the second time.
 */
export function applyLog<T>(entries: readonly LogEntry[], target: Tiers<T>): void {
  for (const entry of entries) {
    if (entry.op === 'c') {
      let dropped = 0;
      for (const [key, row] of target.l1.entries()) {
        if (newer(entry.version, row.version)) {
          target.l1.delete(key);
          dropped++;
        }
      }
      for (const flight of target.flights.flights()) flight.spoiled = true;
      target.counters.cohApplied += dropped;
      target.events.emit('coherence', { op: 'c', keys: [], dropped });
      continue;
    }
    let dropped = 0;
    for (const key of entry.keys) {
      if (entry.op !== 'r') {
        const flight = target.flights.flight(key);
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
    if (dropped > 0 && target.events.listenerCount('coherence') !== 0) target.events.emit('coherence', { op: entry.op, keys: entry.keys, dropped });
  }
}
