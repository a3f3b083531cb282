import { type BrandedId, execute, mintId, reads, transitions } from '@echo/protocol/cache';
import type { Tiers } from './tiers.js';

/** The namespace whose versions mint every keyed write's version. */
export const VERSION_KIND = 'VER';
/** Batch size of the deletes after a clear or a tag delete. */
const DELETE_BATCH = 500;

/**
 * The L2 side of `deleteByTag`: reads the keys in the tag's hash, then deletes them in batches, each
 * batch one `cache_tag_delete` that also announces it (and spares an entry re-written without the
 * tag since). Answers how many entries went.
 */
export async function deleteTagged<T>(target: Tiers<T>, tag: string): Promise<number> {
  const names = await target.guard.write('deleteByTag', () => reads.sendRead(target.connection, reads.cacheTagMembers({ namespace: target.name, tag })));
  let deleted = 0;
  for (let i = 0; i < names.length; i += DELETE_BATCH) {
    const keys = names.slice(i, i + DELETE_BATCH);
    for (const key of keys) target.drop(key);
    const version = mintId(VERSION_KIND);
    deleted += await target.guard.write('deleteByTag', () =>
      execute(target.connection, transitions.cacheTagDelete({ namespace: target.name, tag, keys, version, maxlen: target.options.logMaxLen })),
    );
  }
  return deleted;
}

/**
 * The L2 side of `clear`: announces the clear (every L1 drops what is older than `version`), then
 * finds the namespace's entries with `SCAN` on each master and deletes them quietly in batches.
 */
export async function clearEntries<T>(target: Tiers<T>, version: BrandedId): Promise<void> {
  await target.guard.write('clear', () => execute(target.connection, transitions.cacheClear({ namespace: target.name, version, maxlen: target.options.logMaxLen })));
  for (const master of target.connection.masters()) {
    let cursor = '0';
    do {
      const step = await reads.sendRead(master, reads.cacheEntryScan({ namespace: target.name, cursor, count: DELETE_BATCH }));
      cursor = step.cursor;
      const keys = step.keys;
      if (keys.length > 0) {
        await execute(target.connection, transitions.cacheDelete({ namespace: target.name, keys, version, maxlen: target.options.logMaxLen, announce: false }));
      }
    } while (cursor !== '0');
  }
}
