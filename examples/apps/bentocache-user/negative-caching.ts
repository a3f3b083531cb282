/**
 * Recipe "Negative caching" (docs/guide/cache-recipes.md): a lookup for a row that does not exist
 * is cached too, for `negativeTtlMs`, so the database sees it once.
 */
import type { Cache } from '@echo/cache';
import { type Database, type Product, run, say } from './shared.js';

export async function negativeCaching(cache: Cache, db: Database): Promise<void> {
  const products = await cache.namespace<Product | null>({ name: `lookups-${run}`, ttlMs: 60_000, negativeTtlMs: 5_000 });
  const before = db.queries;
  for (let i = 0; i < 3; i++) await products.getOrSet('product:404', () => db.product(404));
  say(`negative caching: 3 lookups of a missing product, ${String(db.queries - before)} database query`);
  const guest = await products.get('product:404', { default: { id: 0, name: 'no such product', price: 0 } });
  say(`negative caching: has=${String(await products.has('product:404'))}, get with a default=${guest?.name ?? '?'}`);
  // Per call too: a shorter negative lifetime for one lookup.
  await products.getOrSet('product:405', () => db.product(405), { negativeTtlMs: 1 });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const queries = db.queries;
  await products.getOrSet('product:405', () => db.product(405));
  say(`negative caching: after a 1 ms negativeTtlMs the next lookup queries again: ${String(db.queries === queries + 1)}`);
}
