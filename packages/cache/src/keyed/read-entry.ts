import { cacheEntryKey } from '@echo/protocol/cache';
import { cacheHit, cacheMiss } from '../core/cache-hooks.js';
import { decodeEntryFrame } from './entry-frame.js';
import type { KeyedRead } from './events.js';
import type { Tiers } from './tiers.js';

/**
 * The L2 side of a plain read (`get`, `getEntry`, `has`) after an L1 miss: the frame comes with the
 * tick's other reads in one `MGET`, is decoded once for the caller (and admitted to L1 when there is
 * one), and is answered fresh, or stale within its grace. No lease is taken: a plain read never
 * loads. With L2 unreachable in the outage mode, an L1 value in grace answers instead.
 */
export async function readEntry<T>(t: Tiers<T>, key: string): Promise<KeyedRead<T> | undefined> {
  const entry = t.l1.get(key);
  const now = t.now();
  t.counters.misses++;
  const l2Key = cacheEntryKey(t.name, key);
  let frame: Buffer | null;
  try {
    frame = await t.guard.call('get', () => t.reads.read(l2Key));
  } catch (error) {
    if (!t.guard.fallsBack) throw error;
    return entry !== undefined && now < entry.graceUntil ? t.fallback(key, entry) : undefined;
  }
  if (frame === null) {
    cacheMiss(t.name, key);
    return undefined;
  }
  const decoded = decodeEntryFrame(l2Key, frame);
  const value = t.admitFrame(key, decoded, undefined);
  if (decoded.expiresAt !== 0 && decoded.expiresAt <= now) return t.stale(key, value, decoded.version, 'refreshing');
  t.counters.l2Hits++;
  cacheHit(t.name, key, 'l2');
  return { value, source: 'l2', version: decoded.version };
}
