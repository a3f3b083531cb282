/**
 * Day one, from the @echo/cache README: a namespace, getOrSet with ttl and grace, tags, delete, two
 * caches in one process seeing each other's writes, the namespace asked for twice, and the
 * mistakes a bentocache habit makes.
 */
import { type Cache, NamespaceOptionsError } from '@echo/cache';
import { UnknownOptionError, ValueTooLargeError } from '@echo/protocol';
import { type Database, type Product, run, say, waitFor } from './shared.js';

export async function dayOne(cache: Cache, other: Cache, db: Database): Promise<void> {
  const load = async (id: number): Promise<Product> => (await db.product(id)) ?? { id, name: '?', price: 0 };
  const products = await cache.namespace<Product>({ name: `products-${run}`, ttlMs: 60_000, graceMs: 3_600_000 });

  // getOrSet: 20 concurrent callers, one load.
  const herd = await Promise.all(Array.from({ length: 20 }, () => products.getOrSet('product:1', () => load(1), { tags: ['catalog'] })));
  say(`getOrSet x20: ${herd[0]?.name ?? '?'}, loads=${String(db.queries)}`);
  const again = await products.getOrSetEntry('product:1', () => load(1));
  say(`again: source=${again.source}, loads=${String(db.queries)}`);

  // The same namespace asked for twice answers the same handle; different options are refused.
  const same = await cache.namespace<Product>({ name: products.name, ttlMs: 60_000, graceMs: 3_600_000 });
  say(`namespace twice: same handle=${String(same === products)}`);
  try {
    await cache.namespace<Product>({ name: products.name, ttlMs: 5_000 });
  } catch (error) {
    if (error instanceof NamespaceOptionsError) say(`namespace with another ttl: ${error.name} (option ${error.option})`);
    else throw error;
  }

  // The other cache sees this one's writes, and this one sees its writes.
  const seen = await other.namespace<Product>({ name: products.name, ttlMs: 60_000, graceMs: 3_600_000 });
  say(`other cache reads: ${(await seen.get('product:1'))?.name ?? 'nothing'}`);
  await seen.set('product:1', { id: 1, name: 'product 1 (renamed)', price: 12 }, { tags: ['catalog'] });
  await waitFor(async () => (await products.get('product:1'))?.name === 'product 1 (renamed)');
  say(`after the other cache's set: ${(await products.get('product:1'))?.name ?? 'nothing'}`);

  // Tags and delete.
  await products.set('product:2', await load(2), { tags: ['catalog'] });
  await products.set('product:3', await load(3));
  const dropped = await products.deleteByTag('catalog');
  say(`deleteByTag catalog: ${String(dropped)} deleted; product:3 still ${(await products.get('product:3'))?.name ?? 'gone'}`);
  say(`delete product:3: ${String(await products.delete('product:3'))}, then get: ${(await products.get('product:3'))?.name ?? 'undefined'}`);

  // bentocache habits get a clear error, and nothing is written.
  for (const [label, call] of [
    ['skipBusNotify', () => products.set('product:4', { id: 4, name: 'x', price: 1 }, { skipBusNotify: true } as never)],
    ['ttl as a string', () => products.getOrSet('product:4', () => load(4), { ttl: '1h' } as never)],
    ['timeout', () => products.getOrSet('product:4', () => load(4), { timeout: 100 } as never)],
  ] as const) {
    try {
      await call();
      say(`${label}: accepted (unexpected)`);
    } catch (error) {
      const hint = error instanceof UnknownOptionError ? ` -> ${error.hint ?? ''}` : '';
      say(`${label}: ${(error as Error).name}${hint}`);
    }
  }
  say(`product:4 after the refused calls: ${(await products.get('product:4'))?.name ?? 'undefined'}`);

  // Values have a byte cap (1 MiB by default).
  try {
    await products.set('huge', { id: 0, name: 'x'.repeat(2 * 1024 * 1024), price: 0 });
  } catch (error) {
    if (error instanceof ValueTooLargeError) say(`2 MiB value: ${error.name}, cap ${String(error.limit)} bytes`);
    else throw error;
  }
}
