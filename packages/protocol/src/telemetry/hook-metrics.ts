import type { HistogramValue, Labels, MetricFamily, Sample } from './exposition.js';
import { onHook } from './hooks.js';

/** Default histogram bounds for processing times, seconds (Prometheus' client defaults). */
export const DEFAULT_SECONDS_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counters under label sets, keyed by the labels' values in a fixed order. */
class CounterFamily {
  readonly #rows = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  add(labels: Labels, by = 1): void {
    const key = Object.values(labels).join('\u0000');
    const row = this.#rows.get(key);
    if (row) row.value += by;
    else this.#rows.set(key, { labels, value: by });
  }

  value(labels: Labels): number {
    return this.#rows.get(Object.values(labels).join('\u0000'))?.value ?? 0;
  }

  rows(): { labels: Labels; value: number }[] {
    return [...this.#rows.values()];
  }

  family(): MetricFamily {
    return { name: this.name, help: this.help, type: 'counter', samples: this.rows().map((r): Sample => ({ labels: r.labels, value: r.value })) };
  }
}

class HistogramFamily {
  readonly #rows = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = Object.values(labels).join('\u0000');
    let row = this.#rows.get(key);
    if (!row) {
      row = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.#rows.set(key, row);
    }
    for (let i = 0; i < this.bounds.length; i++) if (value <= (this.bounds[i] as number)) row.buckets[i] = (row.buckets[i] as number) + 1;
    row.sum += value;
    row.count++;
  }

  family(): MetricFamily {
    const samples = [...this.#rows.values()].map((r): HistogramValue => ({ labels: r.labels, bounds: this.bounds, buckets: r.buckets, sum: r.sum, count: r.count }));
    return { name: this.name, help: this.help, type: 'histogram', samples };
  }
}

/** Options of {@link HookMetrics}. */
export interface HookMetricsOptions {
  /** Histogram bounds for job processing times, seconds. Default {@link DEFAULT_SECONDS_BUCKETS}. */
  readonly buckets?: readonly number[];
}

/**
 * Counts what this process does, from the telemetry hooks: jobs enqueued, completed, failed and
 * stalled per queue with a processing-time histogram; stream appends, consumptions, acks and dead
 * letters; cache hits, misses, fills, stale reads and evictions per table with the hit ratio.
 * Subscribes on {@link start}, so an app that never starts one pays nothing. What the server alone
 * knows (queue depths, lag) is read at scrape time by the dashboard's `/metrics`.
 *
 * Names follow the scheme in the protocol README: `echo_` prefix, base units (`_seconds`),
 * `_total` on counters, labels `queue`, `stream`, `group`, `table`, `outcome`, `tier`.
 */
export class HookMetrics {
  readonly #enqueued = new CounterFamily('echo_jobs_enqueued_total', 'Jobs admitted by this process.');
  readonly #completed = new CounterFamily('echo_jobs_completed_total', 'Jobs completed by workers of this process.');
  readonly #failed = new CounterFamily('echo_jobs_failed_total', 'Handler failures settled by workers of this process, by outcome (retry or dead).');
  readonly #stalled = new CounterFamily('echo_jobs_stalled_total', 'Lapsed leases found by the pumps of this process, by outcome (recovered or dead).');
  readonly #duration: HistogramFamily;
  readonly #appended = new CounterFamily('echo_stream_appended_total', 'Stream records appended by this process.');
  readonly #consumed = new CounterFamily('echo_stream_consumed_total', 'Stream entries handed to consumers of this process.');
  readonly #acked = new CounterFamily('echo_stream_acked_total', 'Stream entries acknowledged by consumers of this process.');
  readonly #deadLettered = new CounterFamily('echo_stream_dead_lettered_total', 'Stream entries moved to the dead-letter stream by consumers of this process.');
  readonly #hits = new CounterFamily('echo_cache_hits_total', 'Cache reads answered fresh, by tier (l1 or l2).');
  readonly #misses = new CounterFamily('echo_cache_misses_total', 'Cache reads that found no fresh value.');
  readonly #fills = new CounterFamily('echo_cache_fills_total', 'Values loaded and stored by this process.');
  readonly #stale = new CounterFamily('echo_cache_stale_total', 'Cache reads answered with a value in grace.');
  readonly #evictions = new CounterFamily('echo_cache_evictions_total', 'L1 entries evicted for room.');
  #offs: (() => void)[] = [];

  constructor(options: HookMetricsOptions = {}) {
    this.#duration = new HistogramFamily('echo_job_processing_seconds', 'Handler start to settled verdict, by outcome (completed, retry, dead).', options.buckets ?? DEFAULT_SECONDS_BUCKETS);
  }

  /** Subscribes to every hook; idempotent. */
  start(): this {
    if (this.#offs.length > 0) return this;
    this.#offs = [
      onHook('emq.job.enqueue', (e) => this.#enqueued.add({ queue: e.queue }, e.count)),
      onHook('emq.job.complete', (e) => {
        this.#completed.add({ queue: e.queue });
        this.#duration.observe({ queue: e.queue, outcome: 'completed' }, e.durationMs / 1000);
      }),
      onHook('emq.job.fail', (e) => {
        this.#failed.add({ queue: e.queue, outcome: e.outcome });
        this.#duration.observe({ queue: e.queue, outcome: e.outcome }, e.durationMs / 1000);
      }),
      onHook('emq.job.stalled', (e) => this.#stalled.add({ queue: e.queue, outcome: e.outcome })),
      onHook('emq.stream.append', (e) => this.#appended.add({ queue: e.queue, stream: e.stream }, e.count)),
      onHook('emq.stream.consume', (e) => this.#consumed.add({ queue: e.queue, stream: e.stream, group: e.group }, e.count)),
      onHook('emq.stream.ack', (e) => this.#acked.add({ queue: e.queue, stream: e.stream, group: e.group }, e.acked)),
      onHook('emq.stream.dead_letter', (e) => this.#deadLettered.add({ queue: e.queue, stream: e.stream, group: e.group }, e.count)),
      onHook('emq.cache.hit', (e) => this.#hits.add({ table: e.table, tier: e.tier })),
      onHook('emq.cache.miss', (e) => this.#misses.add({ table: e.table })),
      onHook('emq.cache.fill', (e) => this.#fills.add({ table: e.table })),
      onHook('emq.cache.stale', (e) => this.#stale.add({ table: e.table })),
      onHook('emq.cache.evict', (e) => this.#evictions.add({ table: e.table }, e.count)),
    ];
    return this;
  }

  /** Unsubscribes; the counts so far are kept. */
  stop(): void {
    for (const off of this.#offs.splice(0)) off();
  }

  /** Hits over hits plus misses per table, all tiers together: a gauge Prometheus can also derive. */
  #hitRatio(): MetricFamily {
    const tables = new Set([...this.#hits.rows(), ...this.#misses.rows()].map((r) => r.labels.table ?? ''));
    const samples: Sample[] = [];
    for (const table of tables) {
      const hits = this.#hits.value({ table, tier: 'l1' }) + this.#hits.value({ table, tier: 'l2' });
      const total = hits + this.#misses.value({ table });
      if (total > 0) samples.push({ labels: { table }, value: hits / total });
    }
    return { name: 'echo_cache_hit_ratio', help: 'Cache hits over reads (hits plus misses) in this process since start.', type: 'gauge', samples };
  }

  /** The families, for {@link formatExposition} or another registry. */
  families(): MetricFamily[] {
    return [
      this.#enqueued.family(),
      this.#completed.family(),
      this.#failed.family(),
      this.#stalled.family(),
      this.#duration.family(),
      this.#appended.family(),
      this.#consumed.family(),
      this.#acked.family(),
      this.#deadLettered.family(),
      this.#hits.family(),
      this.#misses.family(),
      this.#fills.family(),
      this.#stale.family(),
      this.#evictions.family(),
      this.#hitRatio(),
    ];
  }
}
