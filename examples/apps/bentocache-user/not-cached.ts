/**
 * Recipe "Answers not to cache" (docs/guide/cache-recipes.md): `cacheIf` on the namespace (or per
 * call) and `ctx.skip()` in the factory hand the answer to the caller without writing it.
 */
import type { Cache, FactoryContext } from '@echo/cache';
import { type Database, type Product, run, say } from './shared.js';

/** A product page; drafts are served but never kept. */
interface Page {
  readonly html: string;
  readonly draft: boolean;
}

export async function notCached(cache: Cache, db: Database): Promise<void> {
  let renders = 0;
  const render = (slug: string): Page => {
    renders++;
    return { html: `<h1>${slug}</h1>`, draft: slug.startsWith('draft-') };
  };
  const pages = await cache.namespace<Page>({ name: `pages-${run}`, ttlMs: 60_000, cacheIf: (page) => !page.draft });

  const a = await pages.getOrSetEntry('draft-launch', () => render('draft-launch'));
  const b = await pages.getOrSetEntry('draft-launch', () => render('draft-launch'));
  say(`cacheIf: a draft twice -> ${a.source}, ${b.source}; renders=${String(renders)}`);

  // cacheIf per call replaces the namespace's: this one keeps even a draft.
  await pages.getOrSetEntry('draft-preview', () => render('draft-preview'), { cacheIf: () => true });
  const kept = await pages.getOrSetEntry('draft-preview', () => render('draft-preview'));
  say(`cacheIf per call: a kept draft reads back as ${kept.source}`);

  // ctx.skip(): the factory decides from what it loaded; here, a placeholder for a row it did not
  // find is served but not kept (the next call looks again).
  const prices = await cache.namespace<Product>({ name: `prices-${run}`, ttlMs: 60_000 });
  const load = async (ctx: FactoryContext<Product>): Promise<Product> => {
    const row = await db.product(700);
    if (row !== null) return row;
    ctx.skip();
    return { id: 700, name: 'coming soon', price: 0 };
  };
  const first = await prices.getOrSetEntry('product:700', load);
  const second = await prices.getOrSetEntry('product:700', load);
  say(`ctx.skip(): ${first.value.name} served twice as ${first.source}, ${second.source}; stored=${String(await prices.has('product:700'))}`);
  say(`uncached answers counted: pages ${String(pages.stats().uncached)}, prices ${String(prices.stats().uncached)}`);
}
