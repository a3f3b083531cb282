import { Bus } from '@echo/bus';
import { Connection } from '@echo/protocol';
import { BatchWorker, Queue, Worker } from '@echo/queue';
import { startRedis, uniqueName, waitFor, type RedisServer } from '@echo/testkit';
import { SpanKind, SpanStatusCode, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { instrumentEcho, type EchoInstrumentation } from '../src/index.js';

let server: RedisServer;
let conn: Connection;
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricsOut = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricsOut, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
let otel: EchoInstrumentation | undefined;

beforeAll(async () => {
  // What NodeSDK registers: without a context manager no span is ever current.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  server = await startRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
});
afterEach(() => {
  otel?.close();
  otel = undefined;
  spans.reset();
});
afterAll(async () => {
  context.disable();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  await conn.close();
  await server.stop();
});

function name(what: string): string {
  return uniqueName(`otel-${what}`);
}

function named(span: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((s) => s.name === span);
}

async function metricPoints(metric: string): Promise<DataPoint<unknown>[]> {
  await reader.forceFlush();
  const last = metricsOut.getMetrics().at(-1);
  const found = last?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === metric);
  return found?.dataPoints ?? [];
}

describe('instrumentEcho: traces', () => {
  it('follows a job from its producer span to its handler span (child and link), and a failure to an error span', async () => {
    const q = await Queue.open<string>(name('trace'), { connection: conn });
    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    const worker = await Worker.start(q, (job) => {
      if (job.payload === 'bad') throw new Error('card declined');
    }, { blockMs: 50, maxAttempts: 1 });
    const good = await q.enqueue('good');
    const bad = await q.enqueue('bad');
    await waitFor(() => named(`${q.name} process`).length === 2, { what: 'two consumer spans' });
    await worker.close();

    const producers = named(`${q.name} send`);
    expect(producers.map((s) => [s.kind, s.attributes['messaging.message.id']])).toEqual([
      [SpanKind.PRODUCER, good.id],
      [SpanKind.PRODUCER, bad.id],
    ]);
    const consumerOf = (id: string): ReadableSpan => named(`${q.name} process`).find((s) => s.attributes['messaging.message.id'] === id) as ReadableSpan;
    const [goodProducer, badProducer] = producers as [ReadableSpan, ReadableSpan];
    const ok = consumerOf(good.id);
    expect(ok.kind).toBe(SpanKind.CONSUMER);
    expect(ok.spanContext().traceId).toBe(goodProducer.spanContext().traceId);
    expect(ok.parentSpanContext?.spanId).toBe(goodProducer.spanContext().spanId);
    expect(ok.links.map((l) => l.context.spanId)).toEqual([goodProducer.spanContext().spanId]);
    expect(ok.attributes).toMatchObject({ 'messaging.system': 'echomq', 'echomq.job.attempt': 1, 'echomq.job.outcome': 'completed' });
    expect(ok.status.code).toBe(SpanStatusCode.UNSET);

    const failed = consumerOf(bad.id);
    expect(failed.parentSpanContext?.spanId).toBe(badProducer.spanContext().spanId);
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'card declined' });
    expect(failed.attributes['echomq.job.outcome']).toBe('dead');
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('carries the producer context in the job row: the consumer span is its child, and a span the handler starts is the consumer span\'s', async () => {
    const q = await Queue.open<string>(name('row'), { connection: conn });
    const app = tracerProvider.getTracer('app');
    // The producing instrumentation is stopped before the worker runs: nothing of the producer
    // survives in memory, so the parent can only come from the row, as in another process.
    const producing = instrumentEcho({ tracerProvider, meterProvider: false });
    const { id } = await app.startActiveSpan('checkout', async (span) => {
      try {
        return await q.enqueue('x');
      } finally {
        span.end();
      }
    });
    producing.close();
    const [checkout] = named('checkout');
    const [producer] = named(`${q.name} send`);
    expect(producer?.parentSpanContext?.spanId).toBe(checkout?.spanContext().spanId);
    const row = await q.getJob(id);
    expect(row?.extra.traceparent).toBe(`00-${producer?.spanContext().traceId ?? ''}-${producer?.spanContext().spanId ?? ''}-01`);

    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    const worker = await Worker.start(q, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      app.startSpan('db query').end();
    }, { blockMs: 50 });
    await waitFor(() => named(`${q.name} process`).length === 1 && named('db query').length === 1, { what: 'the consumer and handler spans' });
    await worker.close();
    const [consumer] = named(`${q.name} process`);
    const [db] = named('db query');
    expect(consumer?.spanContext().traceId).toBe(checkout?.spanContext().traceId);
    expect(consumer?.parentSpanContext).toMatchObject({ spanId: producer?.spanContext().spanId, isRemote: true });
    expect(consumer?.links.map((l) => l.context.spanId)).toEqual([producer?.spanContext().spanId]);
    expect(consumer?.attributes['echomq.job.outcome']).toBe('completed');
    expect(db?.parentSpanContext?.spanId).toBe(consumer?.spanContext().spanId);
    expect(db?.spanContext().traceId).toBe(checkout?.spanContext().traceId);
  });

  it('a BatchWorker run is one consumer span linked to each member\'s producer; the handler runs inside it', async () => {
    const q = await Queue.open<number>(name('bw'), { connection: conn });
    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    for (const n of [1, 2, 3]) await q.enqueue(n);
    const app = tracerProvider.getTracer('app');
    const worker = await BatchWorker.start(q, () => {
      app.startSpan('bulk insert').end();
      return 'ok';
    }, { size: 10, blockMs: 50 });
    await waitFor(() => named('bulk insert').length === 1, { what: 'the batch handler span' });
    await worker.close();
    await waitFor(() => named(`${q.name} process`).length === 1, { what: 'the batch span' });
    const [batch] = named(`${q.name} process`);
    const producers = named(`${q.name} send`).map((s) => s.spanContext().spanId);
    expect(batch?.parentSpanContext).toBeUndefined();
    expect(batch?.attributes['messaging.batch.message_count']).toBe(3);
    expect(batch?.links.map((l) => l.context.spanId).sort()).toEqual([...producers].sort());
    expect(named('bulk insert')[0]?.parentSpanContext?.spanId).toBe(batch?.spanContext().spanId);
  });

  it('a refused admission ends its producer span with an error status', async () => {
    const q = await Queue.open<string>(name('refused'), { connection: conn });
    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    await expect(q.enqueue('x', { name: '' })).rejects.toThrow();
    const [producer] = named(`${q.name} send`);
    expect(producer?.status.code).toBe(SpanStatusCode.ERROR);
    expect(producer?.events.map((e) => e.name)).toEqual(['exception']);
  });

  it('an app with no instrumentation writes no trace field into the row', async () => {
    const q = await Queue.open<string>(name('plain'), { connection: conn });
    const app = tracerProvider.getTracer('app');
    const { id } = await app.startActiveSpan('checkout', async (span) => {
      try {
        return await q.enqueue('x');
      } finally {
        span.end();
      }
    });
    const fields = Object.keys((await conn.command('HGETALL', q.keys.job(id))) as Record<string, string>);
    expect(fields.filter((f) => f.startsWith('trace'))).toEqual([]);
    expect((await q.getJob(id))?.extra).toEqual({});
  });

  it('links every job of a batch admission to the one producer span', async () => {
    const q = await Queue.open<number>(name('batch'), { connection: conn });
    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    await q.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    const worker = await Worker.start(q, () => undefined, { blockMs: 50 });
    await waitFor(() => named(`${q.name} process`).length === 3, { what: 'three consumer spans' });
    await worker.close();
    const [producer] = named(`${q.name} send`);
    expect(producer?.attributes['messaging.batch.message_count']).toBe(3);
    for (const consumer of named(`${q.name} process`)) {
      expect(consumer.parentSpanContext).toBeUndefined();
      expect(consumer.links.map((l) => l.context.spanId)).toEqual([producer?.spanContext().spanId]);
    }
  });

  it('traces a stream append and links a delivery to each record it carried', async () => {
    const bus = await Bus.open(name('bus'), { connection: conn });
    const stream = bus.stream('audit');
    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    const first = await stream.append({ n: '1' });
    const second = await stream.append({ n: '2' });
    const seen: string[] = [];
    const consumer = await stream.consume('indexer', ({ id }) => void seen.push(id), { start: 'head', consumer: 'c1', beatMs: 50 });
    await waitFor(() => named('audit process').length > 0 && seen.length === 2, { what: 'the delivery span' });
    await consumer.close();
    const producers = named('audit send');
    expect(producers.map((s) => s.attributes['messaging.message.id'])).toEqual([first, second]);
    const links = named('audit process').flatMap((s) => s.links.map((l) => l.attributes?.['messaging.message.id']));
    expect(links).toEqual([first, second]);
    expect(named('audit process')[0]?.attributes['messaging.consumer.group.name']).toBe('indexer');
  });
});

describe('instrumentEcho: metrics', () => {
  it('counts completions and failures per queue, records processing time and observes depth', async () => {
    const q = await Queue.open<string>(name('metrics'), { connection: conn });
    otel = instrumentEcho({ tracerProvider: false, meterProvider, queues: [q] });
    await q.enqueueMany(['a', 'b', 'bad'].map((payload) => ({ payload })));
    await q.enqueue('later', { delayMs: 60_000 });
    const worker = await Worker.start(q, (job) => {
      if (job.payload === 'bad') throw new Error('nope');
    }, { blockMs: 50, maxAttempts: 1 });
    await waitFor(async () => (await q.counts('dead')).dead === 1 && (await q.counts('completed')).completed === 2, { what: 'the jobs to settle' });
    await worker.close();
    const ofQueue = (points: DataPoint<unknown>[]) => points.filter((p) => p.attributes['echomq.queue'] === q.name);
    await waitFor(async () => ofQueue(await metricPoints('echo.jobs.completed')).length > 0, { what: 'the completions counter' });

    expect(ofQueue(await metricPoints('echo.jobs.completed')).map((p) => p.value)).toEqual([2]);
    expect(ofQueue(await metricPoints('echo.jobs.failed')).map((p) => [p.attributes['echomq.job.outcome'], p.value])).toEqual([['dead', 1]]);
    expect(ofQueue(await metricPoints('echo.jobs.enqueued')).map((p) => p.value)).toEqual([4]);
    const histograms = ofQueue(await metricPoints('echo.job.processing.duration')).map((p) => [p.attributes['echomq.job.outcome'], (p.value as Histogram).count]);
    expect(histograms).toEqual(expect.arrayContaining([['completed', 2], ['dead', 1]]));
    const depth = Object.fromEntries<unknown>(ofQueue(await metricPoints('echo.queue.depth')).map((p) => [String(p.attributes.state), p.value]));
    expect(depth).toEqual({ pending: 0, active: 0, scheduled: 1, dead: 1 });
  });

  it('pays nothing once stopped: the hooks have no listener left', async () => {
    const { hooks, traces } = await import('@echo/protocol/extend');
    const started = instrumentEcho({ tracerProvider, meterProvider });
    expect(hooks.job.complete.hasSubscribers).toBe(true);
    expect(traces.enqueue.hasSubscribers && traces.process.hasSubscribers).toBe(true);
    started.close();
    expect(traces.enqueue.hasSubscribers || traces.process.hasSubscribers).toBe(false);
    expect(hooks.job.complete.hasSubscribers).toBe(false);
    expect(hooks.stream.append.hasSubscribers).toBe(false);
  });
});
