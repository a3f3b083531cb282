/**
 * The built site's search finds every feature issue 41 found in no guide: each query a reader would
 * type lands on the feature's page among the first results. It reads the index the build wrote
 * (`.vitepress/dist`), as the site's search box does; turbo builds the site before this test
 * (docs/turbo.json: test depends on site).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { searchFeatures, TOP } from '../scripts/search/check.js';
import { FEATURES } from '../scripts/search/features.js';
import { loadSiteSearch } from '../scripts/search/search-index.js';

const docs = fileURLToPath(new URL('..', import.meta.url));
const dist = fileURLToPath(new URL('../.vitepress/dist', import.meta.url));

describe("the built site's search", () => {
  it(`finds each feature's page in the first ${String(TOP)} results, by each of its queries`, async () => {
    expect(existsSync(dist), 'build the site first: pnpm docs:build').toBe(true);
    const site = await loadSiteSearch(docs, dist);
    const outcomes = searchFeatures(site);
    expect(outcomes).toHaveLength(FEATURES.reduce((n, f) => n + f.queries.length, 0));
    const misses = outcomes.filter((o) => o.rank === undefined).map((o) => `${o.query} -> ${o.page} (first: ${o.first.join(', ')})`);
    expect(misses).toEqual([]);
  });

  it('answers a word no page holds with nothing, so a found page is a real match', async () => {
    const site = await loadSiteSearch(docs, dist);
    expect(site.search('zyxwvutsrq')).toEqual([]);
    expect(site.sections).toBeGreaterThan(100);
  });
});
