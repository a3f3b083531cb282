/**
 * Recipe "Reading without loading" (docs/guide/cache-recipes.md): get, getMany, getEntry, peek,
 * setForever, forceFresh and pull.
 */
import type { Cache } from '@echo/cache';
import { run, say } from './shared.js';

export async function reads(cache: Cache): Promise<void> {
  const prices = await cache.namespace<number>({ name: `stock-${run}`, ttlMs: 60_000, graceMs: 600_000 });
  await prices.set('sku:A1', 1299, { tags: ['catalog'] });
  await prices.setForever('sku:B2', 499);

  say(`reads: getMany ${JSON.stringify(await prices.getMany(['sku:A1', 'sku:B2', 'sku:C3']))}`);
  say(`reads: getEntry from ${(await prices.getEntry('sku:A1'))?.source ?? '?'}, peek in this process ${String(prices.peek('sku:A1')?.value)}`);
  const refreshed = await prices.getOrSet('sku:A1', () => 1399, { forceFresh: true });
  say(`reads: forceFresh loads even when fresh: ${String(refreshed)}`);
  say(`reads: pull ${String(await prices.pull('sku:B2'))}, then get ${String(await prices.get('sku:B2'))}`);
}
