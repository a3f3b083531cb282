/**
 * A bentocache user's day one, written from the @echo/cache README: open the cache, a namespace,
 * getOrSet with ttl and grace, tags, delete, two caches in one process seeing each other's writes,
 * the namespace asked for twice, and the mistakes a bentocache habit makes. Prints what happened.
 */
import { Cache, NamespaceOptionsError } from '@echo/cache';
import { UnknownOptionError, ValueTooLargeError } from '@echo/protocol';

interface Product {
  readonly id: number;
  readonly name: string;
  readonly price: number;
}

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = Date.now().toString(36);

let loads = 0;
async function loadProduct(id: number): Promise<Product> {
  loads++;
  await new Promise((resolve) => setTimeout(resolve, 20)); // a slow database
  return { id, name: `product ${String(id)}`, price: 10 * id };
}

const cache = await Cache.open({ connect: url });
const other = await Cache.open({ connect: url }); // a second cache in the same process, like a second app instance
try {
  const products = await cache.namespace<Product>({ name: `products-${run}`, ttlMs: 60_000, graceMs: 3_600_000 });

  // getOrSet: 20 concurrent callers, one load.
  const herd = await Promise.all(Array.from({ length: 20 }, () => products.getOrSet('product:1', () => loadProduct(1), { tags: ['catalog'] })));
  console.log(`getOrSet x20: ${herd[0]?.name ?? '?'}, loads=${String(loads)}`);
  const again = await products.getOrSetEntry('product:1', () => loadProduct(1));
  console.log(`again: source=${again.source}, loads=${String(loads)}`);

  // The same namespace asked for twice answers the same handle; different options are refused.
  const same = await cache.namespace<Product>({ name: products.name, ttlMs: 60_000, graceMs: 3_600_000 });
  console.log(`namespace twice: same handle=${String(same === products)}`);
  try {
    await cache.namespace<Product>({ name: products.name, ttlMs: 5_000 });
  } catch (error) {
    if (error instanceof NamespaceOptionsError) console.log(`namespace with another ttl: ${error.name} (option ${error.option})`);
    else throw error;
  }

  // The other cache sees this one's writes, and this one sees its writes.
  const seen = await other.namespace<Product>({ name: products.name, ttlMs: 60_000, graceMs: 3_600_000 });
  console.log(`other cache reads: ${(await seen.get('product:1'))?.name ?? 'nothing'}`);
  await seen.set('product:1', { id: 1, name: 'product 1 (renamed)', price: 12 }, { tags: ['catalog'] });
  await waitFor(async () => (await products.get('product:1'))?.name === 'product 1 (renamed)');
  console.log(`after the other cache's set: ${(await products.get('product:1'))?.name ?? 'nothing'}`);

  // Tags and delete.
  await products.set('product:2', await loadProduct(2), { tags: ['catalog'] });
  await products.set('product:3', await loadProduct(3));
  const dropped = await products.deleteByTag('catalog');
  console.log(`deleteByTag catalog: ${String(dropped)} deleted; product:3 still ${(await products.get('product:3'))?.name ?? 'gone'}`);
  console.log(`delete product:3: ${String(await products.delete('product:3'))}, then get: ${(await products.get('product:3'))?.name ?? 'undefined'}`);

  // bentocache habits get a clear error, and nothing is written.
  for (const [label, call] of [
    ['skipBusNotify', () => products.set('product:4', { id: 4, name: 'x', price: 1 }, { skipBusNotify: true } as never)],
    ['ttl as a string', () => products.getOrSet('product:4', () => loadProduct(4), { ttl: '1h' } as never)],
    ['timeout', () => products.getOrSet('product:4', () => loadProduct(4), { timeout: 100 } as never)],
  ] as const) {
    try {
      await call();
      console.log(`${label}: accepted (unexpected)`);
    } catch (error) {
      const hint = error instanceof UnknownOptionError ? ` -> ${error.hint ?? ''}` : '';
      console.log(`${label}: ${(error as Error).name}${hint}`);
    }
  }
  console.log(`product:4 after the refused calls: ${(await products.get('product:4'))?.name ?? 'undefined'}`);

  // Values have a byte cap (1 MiB by default).
  try {
    await products.set('huge', { id: 0, name: 'x'.repeat(2 * 1024 * 1024), price: 0 });
  } catch (error) {
    if (error instanceof ValueTooLargeError) console.log(`2 MiB value: ${error.name}, cap ${String(error.limit)} bytes`);
    else throw error;
  }
} finally {
  await other.close();
  await cache.close();
}
console.log('done');

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}
