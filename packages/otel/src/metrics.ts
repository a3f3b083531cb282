import type { Attributes, Meter, ObservableResult } from '@opentelemetry/api';
import { onHook } from '@echo/protocol/extend';
import { ATTR, SYSTEM } from './attributes.js';

/** A queue whose depth is observed: an `@echo/queue` `Queue` fits as it is. */
export interface DepthSource {
  readonly name: string;
  counts(...states: ('pending' | 'active' | 'scheduled' | 'dead')[]): Promise<Readonly<Record<string, number>>>;
}

/** One consumer group's lag, as `Stream.lag()` of `@echo/bus` or the dashboard's stream reads give it. */
export interface LagReading {
  readonly queue: string;
  readonly stream: string;
  readonly group: string;
  readonly lag: number;
}

/** What the metrics observe from the server at each collection, besides the hooks. */
export interface ObservedSources {
  /** Queues whose depth per state is reported (`echo.queue.depth`). */
  readonly queues?: readonly DepthSource[];
  /** Reads consumer lag (`echo.stream.lag`); called once per collection. */
  readonly lag?: () => Promise<readonly LagReading[]>;
}

const DEPTH_STATES = ['pending', 'active', 'scheduled', 'dead'] as const;

/**
 * Subscribes to the hooks and records metrics: jobs enqueued, completed and failed per queue, the
 * processing-time histogram, stream appends and consumptions, cache hits and misses; and observes
 * queue depth and stream lag from the server when given sources. Answers the function that stops it.
 */
export function meterHooks(meter: Meter, sources: ObservedSources = {}): () => void {
  const base: Attributes = { [ATTR.system]: SYSTEM };
  const enqueued = meter.createCounter('echo.jobs.enqueued', { description: 'Jobs admitted by this process.', unit: '{job}' });
  const completed = meter.createCounter('echo.jobs.completed', { description: 'Jobs completed by workers of this process.', unit: '{job}' });
  const failed = meter.createCounter('echo.jobs.failed', { description: 'Handler failures settled, by outcome (retry or dead).', unit: '{job}' });
  const processing = meter.createHistogram('echo.job.processing.duration', { description: 'Handler start to settled verdict.', unit: 's' });
  const appended = meter.createCounter('echo.stream.appended', { description: 'Stream records appended by this process.', unit: '{record}' });
  const consumed = meter.createCounter('echo.stream.consumed', { description: 'Stream entries handed to consumers of this process.', unit: '{record}' });
  const hits = meter.createCounter('echo.cache.hits', { description: 'Cache reads answered fresh, by tier.', unit: '{read}' });
  const misses = meter.createCounter('echo.cache.misses', { description: 'Cache reads that found no fresh value.', unit: '{read}' });
  const depth = meter.createObservableGauge('echo.queue.depth', { description: 'Jobs in each state of a queue, read from the server.', unit: '{job}' });
  const lag = meter.createObservableGauge('echo.stream.lag', { description: 'Entries appended after the group last delivered one.', unit: '{record}' });

  const observeDepth = async (result: ObservableResult): Promise<void> => {
    await Promise.all(
      (sources.queues ?? []).map(async (q) => {
        const counts = await q.counts(...DEPTH_STATES);
        for (const state of DEPTH_STATES) result.observe(counts[state] ?? 0, { ...base, [ATTR.queue]: q.name, state });
      }),
    );
  };
  const observeLag = async (result: ObservableResult): Promise<void> => {
    if (!sources.lag) return;
    for (const r of await sources.lag()) result.observe(r.lag, { ...base, [ATTR.queue]: r.queue, [ATTR.stream]: r.stream, [ATTR.consumerGroup]: r.group });
  };
  if (sources.queues !== undefined) depth.addCallback(observeDepth);
  if (sources.lag !== undefined) lag.addCallback(observeLag);

  const offs = [
    onHook('emq.job.enqueue', (e) => enqueued.add(e.count, { ...base, [ATTR.queue]: e.queue })),
    onHook('emq.job.complete', (e) => {
      completed.add(1, { ...base, [ATTR.queue]: e.queue });
      processing.record(e.durationMs / 1000, { ...base, [ATTR.queue]: e.queue, [ATTR.outcome]: 'completed' });
    }),
    onHook('emq.job.fail', (e) => {
      failed.add(1, { ...base, [ATTR.queue]: e.queue, [ATTR.outcome]: e.outcome });
      processing.record(e.durationMs / 1000, { ...base, [ATTR.queue]: e.queue, [ATTR.outcome]: e.outcome });
    }),
    onHook('emq.stream.append', (e) => appended.add(e.count, { ...base, [ATTR.queue]: e.queue, [ATTR.stream]: e.stream })),
    onHook('emq.stream.consume', (e) => consumed.add(e.count, { ...base, [ATTR.queue]: e.queue, [ATTR.stream]: e.stream, [ATTR.consumerGroup]: e.group })),
    onHook('emq.cache.hit', (e) => hits.add(1, { ...base, 'echomq.cache.table': e.table, 'echomq.cache.tier': e.tier })),
    onHook('emq.cache.miss', (e) => misses.add(1, { ...base, 'echomq.cache.table': e.table })),
  ];
  return () => {
    for (const off of offs) off();
    depth.removeCallback(observeDepth);
    lag.removeCallback(observeLag);
  };
}
