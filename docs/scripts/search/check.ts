/**
 * Checks the built site's search: every feature of {@link FEATURES} is found, by each of its
 * queries, on its page among the first {@link TOP} results. Prints one line per query; exits 1 on
 * a miss. Run after `vitepress build` (the docs `site` script does).
 *
 *   pnpm --filter @echo/docs run search-check
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FEATURES } from './features.js';
import { loadSiteSearch, pageOf, type SiteSearch } from './search-index.js';

/** How far down the results a reader looks. */
export const TOP = 5;

/** One query's outcome: the rank of the expected page (1-based), or undefined when not in the first {@link TOP}. */
export interface QueryOutcome {
  readonly feature: string;
  readonly query: string;
  readonly page: string;
  readonly rank: number | undefined;
  readonly first: readonly string[];
}

/** Searches every query of every feature. */
export function searchFeatures(site: SiteSearch): QueryOutcome[] {
  return FEATURES.flatMap(({ feature, queries, page }) =>
    queries.map((query) => {
      const first = site.search(query).slice(0, TOP).map((hit) => hit.id);
      const at = first.findIndex((id) => pageOf({ id, title: '' }) === page);
      return { feature, query, page, rank: at < 0 ? undefined : at + 1, first };
    }),
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const docs = fileURLToPath(new URL('../..', import.meta.url));
  const site = await loadSiteSearch(docs, resolve(docs, '.vitepress/dist'));
  const outcomes = searchFeatures(site);
  for (const o of outcomes) {
    console.log(o.rank === undefined ? `MISS ${o.query} -> ${o.page} (first: ${o.first.join(', ')})` : `ok   ${o.query} -> ${o.page} (#${String(o.rank)})`);
  }
  const misses = outcomes.filter((o) => o.rank === undefined).length;
  console.log(`search: ${String(outcomes.length - misses)} of ${String(outcomes.length)} queries find their page in the first ${String(TOP)} of ${String(site.sections)} sections`);
  process.exitCode = misses === 0 ? 0 : 1;
}
