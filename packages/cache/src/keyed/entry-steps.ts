import { assertCacheEntryKey, cacheEntryKey, execute, mintId, transitions } from '@echo/protocol/cache';
import type { Tiers } from './tiers.js';
import { VERSION_KIND } from './bulk-delete.js';
import { decodeEntryFrame, holdsUndefined } from './entry-frame.js';

/**
 * The L2 side of `pull`: the entry leaves this L1 first, then `cache_pull` reads and deletes it in
 * one step and announces the delete. The value is decoded for the caller alone (it was deleted
 * everywhere, so nobody else holds this copy); a cached `undefined` answers `undefined`.
 */
export async function pullEntry<T>(target: Tiers<T>, key: string): Promise<T | undefined> {
  const codec = target.options.codec;
  assertCacheEntryKey(key);
  target.drop(key);
  const hex = codec.binary === true;
  const version = mintId(VERSION_KIND);
  const reply = await target.guard.write('pull', () => execute(target.connection, transitions.cachePull({ namespace: target.name, key, version, maxlen: target.options.logMaxLen, hex })));
  if (reply === null) return undefined;
  const frame = decodeEntryFrame(cacheEntryKey(target.name, key), reply, hex);
  return holdsUndefined(frame.version) ? undefined : codec.decode(frame.bytes);
}

/**
 * The L2 side of `expire`: the entry leaves this L1 (the next read finds the stale frame in L2),
 * then `cache_expire` marks it stale at the server's clock, keeps it `grace` ms (the namespace's; a
 * per-write grace is not in the frame) and announces it. Answers whether L2 held the entry.
 */
export async function expireEntry<T>(target: Tiers<T>, key: string): Promise<boolean> {
  const grace = target.options.graceMs;
  assertCacheEntryKey(key);
  target.drop(key);
  const version = mintId(VERSION_KIND);
  const outcome = await target.guard.write('expire', () =>
    execute(target.connection, transitions.cacheExpire({ namespace: target.name, key, version, grace, maxlen: target.options.logMaxLen })),
  );
  return outcome !== 'absent';
}
