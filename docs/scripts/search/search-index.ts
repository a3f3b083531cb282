/**
 * The built site's search index, read as the site's search box reads it: VitePress's local search
 * writes one MiniSearch index per locale into a chunk of the build (`@localSearchIndexroot.*.js`),
 * and its search box loads it with fixed options (VPLocalSearchBox.vue: fuzzy 0.2, prefix, title
 * boosted). Searching it here answers what a reader of the built site sees, not what the Markdown
 * says.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One search result: the section's URL (`/guide/x#anchor`) and its title. */
export interface SearchHit {
  readonly id: string;
  readonly title: string;
}

/** A loaded index and how to ask it. */
export interface SiteSearch {
  /** The results for `query`, best first, as the search box lists them. */
  search(query: string): SearchHit[];
  /** How many sections the index holds. */
  readonly sections: number;
}

/** The search box's options (VitePress 1.6 VPLocalSearchBox.vue; the site sets no miniSearch options). */
const BOX_OPTIONS = {
  fields: ['title', 'titles', 'text'],
  storeFields: ['title', 'titles'],
  searchOptions: { fuzzy: 0.2, prefix: true, boost: { title: 4, text: 2, titles: 1 } },
};

/** The part of MiniSearch's API this check uses (typed here: minisearch is VitePress's dependency, not ours). */
interface MiniSearchIndex {
  readonly documentCount: number;
  search(query: string): { readonly id: unknown; readonly title?: unknown }[];
}
interface MiniSearchClass {
  loadJSON(json: string, options: typeof BOX_OPTIONS): MiniSearchIndex;
}

/** MiniSearch, the very copy VitePress builds the index with and its search box reads it with. */
function miniSearch(docsDir: string): MiniSearchClass {
  const fromVitepress = createRequire(createRequire(join(docsDir, 'package.json')).resolve('vitepress/package.json'));
  return fromVitepress('minisearch') as MiniSearchClass;
}

/**
 * Loads the index of the site built into `distDir` (`docs/.vitepress/dist`).
 * @throws Error when the build holds no search index (the site was not built, or not with local search).
 */
export async function loadSiteSearch(docsDir: string, distDir: string): Promise<SiteSearch> {
  const chunks = join(distDir, 'assets', 'chunks');
  const file = readdirSync(chunks).find((name) => /^@localSearchIndexroot\.[\w-]+\.js$/.test(name));
  if (file === undefined) throw new Error(`no search index in ${chunks}: build the site first (pnpm docs:build)`);
  const chunk = (await import(pathToFileURL(join(chunks, file)).href)) as { default: string };
  const MiniSearch = miniSearch(docsDir);
  const index = MiniSearch.loadJSON(chunk.default, BOX_OPTIONS);
  return {
    sections: index.documentCount,
    search: (query) => index.search(query).map((hit) => ({ id: String(hit.id), title: String(hit.title) })),
  };
}

/** The page a hit is on: its URL without the anchor. */
export function pageOf(hit: SearchHit): string {
  return hit.id.split('#')[0] ?? hit.id;
}
