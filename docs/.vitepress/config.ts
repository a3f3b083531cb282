import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

/**
 * The sidebar of the generated API reference (typedoc-plugin-markdown writes `api/typedoc-sidebar.json`
 * when `pnpm run api` ran); without it the site still builds, with a pointer to the command.
 */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
  if (!existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[];
}

const docsRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * A page's source with its `<!--@include: path{lines}-->` directives expanded, so the search index
 * holds what the page shows (the `@echo/bullmq` page includes the package README).
 */
function withIncludes(src: string, relativePath: string): string {
  return src.replace(/<!--@include:\s*([^{\s]+?)(?:\{(\d*),?(\d*)\})?\s*-->/g, (_all, target: string, from?: string, to?: string) => {
    const file = resolve(docsRoot, dirname(relativePath), target);
    if (!existsSync(file)) return '';
    const lines = readFileSync(file, 'utf8').split('\n');
    const start = from === undefined || from === '' ? 0 : Number(from) - 1;
    const end = to === undefined || to === '' ? lines.length : Number(to);
    return lines.slice(start, end).join('\n');
  });
}

// Built offline: no web fonts, no remote search, every link checked (VitePress fails the build on a
// dead link, and that stays on).
export default defineConfig({
  title: 'Echo',
  description: 'EchoMQ for TypeScript: a job queue, an event bus and a cache on Redis or Valkey.',
  srcExclude: ['README.md', 'scripts/**', 'test/**', 'node_modules/**'],
  cleanUrls: true,
  lastUpdated: false,
  themeConfig: {
    search: {
      provider: 'local',
      options: {
        // The generated API reference is most of the site's text (one page holds 300 KB): indexing it
        // whole made a 3.4 MB search index every visitor downloads and a slow build. Its headings
        // (every package, class, function and member name) are indexed; the guides are indexed whole.
        _render(src, env, md) {
          const relative = (env as { relativePath?: string }).relativePath ?? '';
          if (!relative.startsWith('api/')) return md.render(withIncludes(src, relative), env);
          const headings = src.split('\n').filter((line) => /^#{1,5} /.test(line));
          return md.render(headings.join('\n\n'), env);
        },
      },
    },
    nav: [
      { text: 'Guide', link: '/guide/' },
      { text: 'Coming from', link: '/coming-from/bullmq' },
      { text: 'Concepts', link: '/concepts/protocol' },
      { text: 'Operations', link: '/operations/' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: [
      {
        text: 'Getting started',
        items: [
          { text: 'Overview', link: '/guide/' },
          { text: 'Install before the first publish', link: '/guide/install' },
          { text: 'Queue', link: '/guide/queue' },
          { text: 'Bus', link: '/guide/bus' },
          { text: 'Cache', link: '/guide/cache' },
        ],
      },
      {
        text: 'Recipes',
        items: [
          { text: 'Queue: schedulers, retention, deadlines, debounce, attempt history', link: '/guide/queue-recipes' },
          { text: 'Bus: streams alone, publish dedup, ordered consumption, group controls, dead letters', link: '/guide/bus-recipes' },
          { text: 'Cache: negative caching, skip and cacheIf, reads without loading', link: '/guide/cache-recipes' },
        ],
      },
      {
        text: 'Coming from',
        items: [
          { text: 'BullMQ', link: '/coming-from/bullmq' },
          { text: '@echo/bullmq: BullMQ\'s API on Echo', link: '/guide/bullmq' },
          { text: 'Migrating a live BullMQ app', link: '/coming-from/bullmq-migration' },
          { text: 'bentocache', link: '/coming-from/bentocache' },
          { text: 'Redis Streams / JetStream', link: '/coming-from/streams' },
        ],
      },
      {
        text: 'Concepts',
        items: [
          { text: 'The protocol and its transitions', link: '/concepts/protocol' },
          { text: 'Leases and fencing', link: '/concepts/leases' },
          { text: 'Delivery guarantees', link: '/concepts/delivery' },
          { text: 'Cache coherence', link: '/concepts/coherence' },
        ],
      },
      {
        text: 'Operations',
        items: [
          { text: 'Overview', link: '/operations/' },
          { text: 'Cluster and Sentinel', link: '/operations/topologies' },
          { text: 'ACL rules', link: '/operations/acl' },
          { text: 'Durability, eviction, memory', link: '/operations/durability' },
          { text: 'Prometheus and OpenTelemetry', link: '/operations/telemetry' },
          { text: 'Dashboard and CLI', link: '/operations/dashboard-cli' },
          { text: 'Upgrades', link: '/operations/upgrades' },
          { text: 'Beside other EchoMQ runtimes', link: '/operations/mixed-fleet' },
        ],
      },
      { text: 'Extending the protocol', link: '/extending' },
      { text: 'Writing these docs', link: '/CONTRIBUTING' },
      { text: 'API reference', link: '/api/', items: apiSidebar(), collapsed: true },
    ],
    outline: { level: [2, 3] },
  },
});
