import { Bus } from '@echo/bus';
import { Connection, traces } from '@echo/protocol/extend';
import { startRedis, uniqueName, waitFor, type RedisServer } from '@echo/testkit';
import { SpanKind, SpanStatusCode, context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { instrumentEcho, type EchoInstrumentation } from '../src/index.js';

let server: RedisServer;
let producerConn: Connection;
let consumerConn: Connection;
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const app = tracerProvider.getTracer('app');
let otel: EchoInstrumentation | undefined;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  server = await startRedis();
  producerConn = await Connection.connect({ url: server.url, strictKeys: true });
  consumerConn = await Connection.connect({ url: server.url, strictKeys: true });
});
afterEach(() => {
  otel?.close();
  otel = undefined;
  spans.reset();
});
afterAll(async () => {
  context.disable();
  await tracerProvider.shutdown();
  await consumerConn.close();
  await producerConn.close();
  await server.stop();
});

function named(span: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((s) => s.name === span);
}

/** Appends inside an app span with a producing instrumentation that is stopped afterwards. */
async function produce<R>(send: () => Promise<R>): Promise<R> {
  const producing = instrumentEcho({ tracerProvider, meterProvider: false });
  try {
    return await app.startActiveSpan('publish', async (span) => {
      try {
        return await send();
      } finally {
        span.end();
      }
    });
  } finally {
    // Nothing of the producer survives in memory: the parent can only come from the record.
    producing.close();
  }
}

describe('instrumentEcho: trace context across the bus', () => {
  it('a delivery in another connection is the child of the record\'s producer span, and the handler\'s spans are its children', async () => {
    const queue = uniqueName('otel-bus');
    const producer = (await Bus.open(queue, { connection: producerConn })).stream('orders', { traceContext: true });
    const id = await produce(() => producer.append({ order: '42' }));
    const [publish] = named('publish');
    const [send] = named('orders send');
    expect(send?.kind).toBe(SpanKind.PRODUCER);
    expect(send?.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);
    expect(send?.attributes['messaging.message.id']).toBe(id);

    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    const consumerSide = (await Bus.open(queue, { connection: consumerConn })).stream('orders', { traceContext: true });
    const payloads: unknown[] = [];
    const consumer = await consumerSide.consume('billing', async ({ payload }) => {
      payloads.push(payload);
      await new Promise((resolve) => setImmediate(resolve));
      app.startSpan('charge').end();
    }, { start: 'head', consumer: 'c1', beatMs: 50 });
    await waitFor(() => named('orders process').length === 1 && named('charge').length === 1, { what: 'the consumer and handler spans' });
    await consumer.close();

    expect(payloads).toEqual([{ order: '42' }]);
    const [process] = named('orders process');
    const [charge] = named('charge');
    expect(process?.kind).toBe(SpanKind.CONSUMER);
    expect(process?.spanContext().traceId).toBe(publish?.spanContext().traceId);
    expect(process?.parentSpanContext).toMatchObject({ spanId: send?.spanContext().spanId, isRemote: true });
    expect(process?.links.map((l) => l.context.spanId)).toEqual([send?.spanContext().spanId]);
    expect(process?.attributes).toMatchObject({ 'messaging.message.id': id, 'messaging.consumer.group.name': 'billing', 'echomq.stream': 'orders' });
    expect(charge?.parentSpanContext?.spanId).toBe(process?.spanContext().spanId);
    expect(charge?.spanContext().traceId).toBe(publish?.spanContext().traceId);
  });

  it('a batch handler is one span linked to each entry\'s producer, with the handler inside it; a throw marks it failed', async () => {
    const queue = uniqueName('otel-bus-batch');
    const producer = (await Bus.open(queue, { connection: producerConn })).stream('orders', { traceContext: true });
    const first = await produce(() => producer.append({ n: '1' }));
    const second = await produce(() => producer.append({ n: '2' }));
    const sends = named('orders send');
    expect(sends).toHaveLength(2);

    otel = instrumentEcho({ tracerProvider, meterProvider: false });
    const consumerSide = (await Bus.open(queue, { connection: consumerConn })).stream('orders', { traceContext: true });
    let calls = 0;
    const consumer = await consumerSide.consumeBatch('billing', (entries) => {
      calls++;
      app.startSpan('bulk write').end();
      if (calls === 1 && entries.length === 2) throw new Error('db down');
    }, { start: 'head', consumer: 'c1', beatMs: 50, minIdleMs: 0 });
    await waitFor(() => named('orders process').length >= 2, { what: 'two batch spans (a failure, then a redelivery)' });
    await consumer.close();

    const [failed] = named('orders process');
    expect(failed?.parentSpanContext).toBeUndefined();
    expect(failed?.attributes['messaging.batch.message_count']).toBe(2);
    expect(failed?.links.map((l) => [l.context.spanId, l.attributes?.['messaging.message.id']])).toEqual([
      [sends[0]?.spanContext().spanId, first],
      [sends[1]?.spanContext().spanId, second],
    ]);
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'db down' });
    const [bulk] = named('bulk write');
    expect(bulk?.parentSpanContext?.spanId).toBe(failed?.spanContext().spanId);
  });

  it('stops listening to the stream tracing channels', () => {
    const started = instrumentEcho({ tracerProvider, meterProvider: false });
    expect(traces.streamAppend.hasSubscribers && traces.streamProcess.hasSubscribers).toBe(true);
    started.close();
    expect(traces.streamAppend.hasSubscribers || traces.streamProcess.hasSubscribers).toBe(false);
  });
});
