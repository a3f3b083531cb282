import { formatExposition, type HookMetrics, type MetricFamily, type Sample } from '@echo/protocol/extend';
import type { Admin } from './admin.js';
import { cacheTableViews, type CacheStatsSource } from './caches.js';
import type { CacheTableRef, StreamRef } from './discover.js';
import { checkMetricsOptions } from '../option-checks.js';

/** What a Prometheus scrape reads besides the server. */
export interface MetricsOptions {
  /** This process's hook counters (jobs, streams, cache, processing-time histogram). */
  readonly hooks?: HookMetrics;
  /** This process's cache directory, for per-table hit ratios from its own counters. */
  readonly cache?: CacheStatsSource;
  /** The queues to report; every queue on the server when omitted. */
  readonly queues?: readonly string[];
  /** The streams to report; every stream on the server when omitted. */
  readonly streams?: readonly StreamRef[];
  /** The cache tables seen on the server; scanned when omitted. */
  readonly cacheTables?: readonly CacheTableRef[];
}

function gauge(name: string, help: string, samples: Sample[]): MetricFamily {
  return { name, help, type: 'gauge', samples };
}

function counter(name: string, help: string, samples: Sample[]): MetricFamily {
  return { name, help, type: 'counter', samples };
}

/**
 * The server-side metric families, read now: queue depths per state, the queues' completed and
 * failed counters (every process together; Prometheus' `rate()` makes the throughput), pause
 * state, stream lengths, group lag and pending counts, and cache L2 rows.
 */
export async function serverMetricFamilies(admin: Admin, options: MetricsOptions = {}): Promise<MetricFamily[]> {
  checkMetricsOptions(options);
  const [summaries, streams, tables] = await Promise.all([
    admin.summaries(options.queues),
    admin.streams(options.streams),
    options.cacheTables === undefined ? admin.cacheTables() : Promise.resolve(options.cacheTables),
  ]);
  const depth: Sample[] = [];
  const completed: Sample[] = [];
  const failed: Sample[] = [];
  const paused: Sample[] = [];
  for (const s of summaries) {
    const queue = s.name;
    // `lanes`: jobs pending in lanes, which only a lane worker serves (apart from `pending`).
    for (const state of ['pending', 'lanes', 'active', 'scheduled', 'dead'] as const) depth.push({ labels: { queue, state }, value: s.counts[state] });
    depth.push({ labels: { queue, state: 'awaiting_children' }, value: s.counts.awaitingChildren });
    completed.push({ labels: { queue }, value: s.counts.completed });
    failed.push({ labels: { queue }, value: s.counts.failed });
    paused.push({ labels: { queue }, value: s.paused ? 1 : 0 });
  }
  const length: Sample[] = [];
  const lag: Sample[] = [];
  const pending: Sample[] = [];
  for (const info of streams) {
    const base = { queue: info.queue, stream: info.name };
    length.push({ labels: base, value: info.length });
    for (const g of info.groups) {
      if (g.lag !== undefined) lag.push({ labels: { ...base, group: g.name }, value: g.lag });
      pending.push({ labels: { ...base, group: g.name }, value: g.pending });
    }
  }
  const views = cacheTableViews(tables, options.cache);
  const rows: Sample[] = views.map((v) => ({ labels: { table: v.table }, value: v.l2Rows }));
  const local: Sample[] = [];
  for (const v of views) {
    const ratio = v.local?.hitRatio;
    if (ratio !== undefined && ratio !== null) local.push({ labels: { table: v.table }, value: ratio });
  }
  return [
    gauge('echo_queue_jobs', 'Jobs in each state of a queue, read from the server at scrape.', depth),
    counter('echo_queue_completed_total', 'Jobs completed on the queue by every worker (the metrics:completed counter).', completed),
    counter('echo_queue_failed_total', 'Jobs dead-lettered on the queue by every worker (the metrics:failed counter).', failed),
    gauge('echo_queue_paused', '1 while the queue is paused.', paused),
    gauge('echo_stream_length', 'Records in a stream log.', length),
    gauge('echo_stream_group_lag', 'Entries appended after the group last delivered one (Redis 7+).', lag),
    gauge('echo_stream_group_pending', 'Entries delivered to the group and not yet acknowledged.', pending),
    gauge('echo_cache_l2_rows', 'L2 rows of a cache table on the server.', rows),
    gauge('echo_cache_table_hit_ratio', "Hit ratio from the cache directory's own counters (this process).", local),
  ];
}

/**
 * The Prometheus text exposition of the server's figures and, when given, this process's hook
 * counters. The function behind the dashboard's `/metrics`, usable in any HTTP server.
 *
 * @example
 * const hooks = new HookMetrics().start();
 * http.createServer(async (_, res) => res.end(await prometheusMetrics(admin, { hooks }))).listen(9464);
 */
export async function prometheusMetrics(admin: Admin, options: MetricsOptions = {}): Promise<string> {
  const families = await serverMetricFamilies(admin, options);
  return formatExposition([...families, ...(options.hooks?.families() ?? [])]);
}
