/**
 * `@echo/dashboard`: a web dashboard for EchoMQ. Queues with live counts and throughput, jobs in
 * every state with payload, logs, result and the timeline of their attempts, search by id, key or
 * name, select-and-act, schedulers, per-minute counts, pause and resume, streams with their groups,
 * lag and dead letters (with redrive), and cache tables. A Hono app to mount in your own server
 * ({@link createDashboard}) or to serve alone ({@link serveDashboard}, or `emq dashboard` from
 * `@echo/cli`). {@link Admin} is the read and write layer under it, usable on its own.
 *
 * @packageDocumentation
 */
export { createDashboard, WRITE_HEADER, type Access, type AuthorizeHook, type DashboardOptions } from './web/app.js';
export { serveDashboard, type RunningDashboard, type ServeOptions } from './web/serve.js';
export { Admin, type RetryAllResult } from './inspect/admin.js';
export { prometheusMetrics, serverMetricFamilies, type MetricsOptions } from './inspect/metrics.js';
export { cacheTableViews, type CacheCounters, type CacheStatsSource, type CacheTableView } from './inspect/caches.js';
export { discoverCacheTables, discoverQueues, discoverStreams, scanKeys, type CacheTableRef, type StreamRef } from './inspect/discover.js';
export type { GroupInfo, StreamInfo } from './inspect/streams.js';
export type { JobDetail, JobListView, JobScheduler, JobView, QueueCounts, QueueRates, QueueSummary } from './inspect/views.js';
export { BULK_ACTIONS, BULK_MAX, type BulkAction, type BulkOutcome, type BulkResult } from './inspect/bulk.js';
export { NAME_SCAN, type SearchHit, type SearchMatch, type SearchResult } from './inspect/search.js';
export { DEAD_LETTER_PAGE, type DeadLetterView, type SchedulerView } from './inspect/operations.js';
export { discoverNamespaces, namespaceEntries, namespaceViews, type NamespaceCounters, type NamespaceEntries, type NamespaceEntry, type NamespaceRef, type NamespaceStatsSource, type NamespaceView } from './inspect/namespaces.js';
