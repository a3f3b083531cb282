/**
 * Grace (docs/guide/cache.md, cache-recipes.md): an entry past its lifetime is kept for `graceMs`
 * and served while its refresh runs, times out softly, or fails.
 */
import type { Cache } from '@echo/cache';
import { type Database, type Product, run, say } from './shared.js';

export async function grace(cache: Cache, db: Database): Promise<void> {
  const products = await cache.namespace<Product>({ name: `graced-${run}`, ttlMs: 60_000, graceMs: 600_000 });
  const load = async (): Promise<Product> => (await db.product(8)) ?? { id: 8, name: '?', price: 0 };
  await products.getOrSet('product:8', load);

  await products.expire('product:8'); // stale now, kept for its grace
  const stale = await products.getEntry('product:8');
  say(`grace: after expire, get answers ${stale?.source ?? 'nothing'} ${stale?.value.name ?? ''}`);

  // The database is down: the refresh fails, the stale value is served instead of the error.
  const down = await products.getOrSetEntry('product:8', () => Promise.reject(new Error('database down')));
  say(`grace: refresh failed, served ${down.source} ${down.value.name}`);

  // The database is slow: with a soft timeout the caller gets the stale value at once, the refresh
  // finishes behind it; the factory sees the stale value in ctx.stale.
  let sawStale = '';
  const slow = await products.getOrSetEntry(
    'product:8',
    async (ctx) => {
      sawStale = ctx.stale?.name ?? 'none';
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { id: 8, name: 'product 8 (new price)', price: 85 };
    },
    { timeouts: { softMs: 10 } },
  );
  say(`grace: slow refresh, served ${slow.source} ${slow.value.name}; the factory saw ctx.stale=${sawStale}`);
  for (let i = 0; i < 100 && (await products.get('product:8'))?.price !== 85; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  say(`grace: once the refresh landed: ${(await products.get('product:8'))?.name ?? '?'}`);
}
