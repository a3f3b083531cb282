/**
 * What a reader types into the site's search to find each feature issue 41 found in no guide, and
 * the page that must answer it. Each feature is searched by its API name and by the words a
 * newcomer would use; both must find the page.
 */
export interface SearchedFeature {
  /** The feature, as the issue names it. */
  readonly feature: string;
  /** What a reader types, each searched on its own. */
  readonly queries: readonly string[];
  /** The page (clean URL, no anchor) that must be among the first results. */
  readonly page: string;
}

export const FEATURES: readonly SearchedFeature[] = [
  { feature: 'negative caching', queries: ['negativeTtlMs', 'negative caching'], page: '/guide/cache-recipes' },
  { feature: 'ctx.skip() / cacheIf', queries: ['cacheIf', 'ctx.skip'], page: '/guide/cache-recipes' },
  { feature: 'publish dedup (msgId)', queries: ['msgId', 'publish deduplication'], page: '/guide/bus-recipes' },
  { feature: 'ordered consumption (orderBy)', queries: ['orderBy', 'ordered consumption'], page: '/guide/bus-recipes' },
  { feature: 'group pause/reset', queries: ['pauseGroup', 'resetGroup', 'pausing a group'], page: '/guide/bus-recipes' },
  { feature: 'Bus.open({ connect }) for streams without a queue', queries: ['streams without a queue', 'Bus.open connect'], page: '/guide/bus-recipes' },
  { feature: 'schedulers', queries: ['upsertScheduler', 'scheduler cron'], page: '/guide/queue-recipes' },
  // The bare word 'retention' ranks the bus's stream retention first, rightly: a queue user's words are these.
  { feature: 'retention (keep)', queries: ['job retention', 'keep completed jobs', 'removeOnComplete'], page: '/guide/queue-recipes' },
  { feature: 'deadlines (expireInMs)', queries: ['expireInMs', 'deadline'], page: '/guide/queue-recipes' },
  { feature: 'debounce modes', queries: ['debounce', 'dedupMode'], page: '/guide/queue-recipes' },
  { feature: 'attempt history', queries: ['attempt history', 'getAttempts'], page: '/guide/queue-recipes' },
  { feature: '@echo/bullmq', queries: ['@echo/bullmq', 'BullMQ API on Echo'], page: '/guide/bullmq' },
];
