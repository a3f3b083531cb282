import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe, type Channel } from 'node:diagnostics_channel';
import { InvalidArgumentError, mintId, traces, type AppendTraceContext, type Connection, type StreamProcessTraceContext } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus, TRACEPARENT_FIELD, TRACESTATE_FIELD, type GroupEntry, type Stream } from '../src/index.js';
import { connect, until } from './helpers.js';

const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TS = 'rojo=00f067aa0ba902b7';

let conn: Connection;
let other: Connection;
const offs: (() => void)[] = [];
beforeAll(async () => {
  conn = await connect();
  other = await connect();
});
afterEach(() => {
  for (const off of offs.splice(0)) off();
});
afterAll(async () => {
  await other.close();
  await conn.close();
});

/** Subscribes `fn` to one event channel of a tracing channel until the test ends. */
function listen(channel: Channel, fn: (ctx: never) => void): void {
  const listener = (message: unknown): void => {
    fn(message as never);
  };
  subscribe(channel.name, listener);
  offs.push(() => unsubscribe(channel.name, listener));
}

/** A producer-side subscriber that fills every carrier of `queue`, as an instrumentation would. */
function fillCarriers(queue: string, carrier: { traceparent: string; tracestate?: string }): AppendTraceContext[] {
  const seen: AppendTraceContext[] = [];
  const start = (ctx: AppendTraceContext): void => {
    if (ctx.queue !== queue) return;
    seen.push(ctx);
    Object.assign(ctx.carrier, carrier);
  };
  listen(traces.streamAppend.start, start);
  return seen;
}

/** A consumer-side subscriber that records each handler call and runs it inside `store`. */
function enterCalls(queue: string, store: AsyncLocalStorage<string>): StreamProcessTraceContext[] {
  const seen: StreamProcessTraceContext[] = [];
  const start = (ctx: StreamProcessTraceContext): void => {
    if (ctx.queue !== queue) return;
    seen.push(ctx);
    const label = `${ctx.batch ? 'batch' : 'one'}:${ctx.entries.map((e) => e.trace?.traceparent ?? '-').join(',')}`;
    ctx.enter = (run) => store.run(label, run);
  };
  listen(traces.streamProcess.start, start);
  return seen;
}

async function raw(stream: Stream): Promise<string[][]> {
  const reply = (await conn.command('XRANGE', stream.key, '-', '+')) as [string, string[]][];
  return reply.map(([, pairs]) => pairs);
}

describe('stream trace context', () => {
  it('option off: nothing but id and the caller fields on the wire, even when a subscriber fills the carrier', async () => {
    const queue = uniqueName('tc-off');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit');
    const appends = fillCarriers(queue, { traceparent: TP });
    const a = await stream.append({ n: '1' });
    const [b] = await stream.appendBatch([{ n: '2', _tp: 'mine' }]);
    expect(appends.map((c) => [c.carried, c.count, c.ids])).toEqual([
      [false, 1, [a]],
      [false, 1, [b]],
    ]);
    expect(await raw(stream)).toEqual([
      ['id', a, 'n', '1'],
      ['id', b, 'n', '2', '_tp', 'mine'],
    ]);
    // Off, the names are the caller's own: read back as payload.
    expect((await stream.read()).map(([, f]) => f)).toEqual([{ n: '1' }, { n: '2', _tp: 'mine' }]);
  });

  it('option on: the carrier is written after the caller fields and stripped by read, readSince and tail', async () => {
    const queue = uniqueName('tc-on');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    expect(stream.traceContext).toBe(true);
    fillCarriers(queue, { traceparent: TP, tracestate: TS });
    const a = await stream.append({ n: '1' });
    const [b, c] = await stream.appendBatch([{ n: '2' }, { n: '3' }]);
    const d = await stream.appendId(mintId('EVT'), { n: '4' });
    const rows = await raw(stream);
    expect(rows[3]).toEqual(['id', d, 'n', '4', TRACEPARENT_FIELD, TP, TRACESTATE_FIELD, TS]);
    expect(rows[0]).toEqual(['id', a, 'n', '1', TRACEPARENT_FIELD, TP, TRACESTATE_FIELD, TS]);
    expect(rows[1]).toEqual(['id', b, 'n', '2', TRACEPARENT_FIELD, TP, TRACESTATE_FIELD, TS]);
    expect(rows[2]).toEqual(['id', c, 'n', '3', TRACEPARENT_FIELD, TP, TRACESTATE_FIELD, TS]);
    expect((await stream.read()).map(([, f]) => f)).toEqual([{ n: '1' }, { n: '2' }, { n: '3' }, { n: '4' }]);
    expect((await stream.readSince(0)).map(([, f]) => f)).toEqual([{ n: '1' }, { n: '2' }, { n: '3' }, { n: '4' }]);
    const tail = stream.tail({ from: 'head' });
    const first = await tail.next();
    await tail.close();
    expect(first.value?.[1]).toEqual({ n: '1' });
  });

  it('option on: a caller field named _tp or _ts is refused with a typed error and nothing is written', async () => {
    const queue = uniqueName('tc-reserved');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    await expect(stream.append({ _tp: TP })).rejects.toThrow(InvalidArgumentError);
    await expect(stream.append({ n: '1', _ts: TS })).rejects.toThrow(/"_ts" is reserved/);
    await expect(stream.appendBatch([{ n: '1' }, { _tp: 'x' }])).rejects.toThrow(/records\[1\]/);
    await expect(stream.appendId(mintId('EVT'), { _tp: 'x' })).rejects.toThrow(InvalidArgumentError);
    expect(await conn.command('EXISTS', stream.key)).toBe(0);
  });

  it('option on with nobody tracing: records are exactly the caller fields', async () => {
    const queue = uniqueName('tc-quiet');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    const a = await stream.append({ n: '1' });
    expect(await raw(stream)).toEqual([['id', a, 'n', '1']]);
  });

  it('a consumer in another connection gets the payload without trace fields, the context on the process channel, and runs inside enter', async () => {
    const queue = uniqueName('tc-consume');
    const producer = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    const stopFilling = offs.length;
    fillCarriers(queue, { traceparent: TP });
    const a = await producer.append({ n: '1' });
    for (const off of offs.splice(stopFilling)) off();
    // Written by hand, as another runtime might: a malformed _tp reads as no context, and is still stripped.
    const foreign = mintId('EVT');
    await producer.appendId(foreign, { n: '2' });
    await conn.command('XADD', producer.key, '*', 'id', mintId('EVT'), 'n', '3', TRACEPARENT_FIELD, 'garbage');

    const store = new AsyncLocalStorage<string>();
    const calls = enterCalls(queue, store);
    const consumerSide = (await Bus.open(queue, { connection: other })).stream('audit', { traceContext: true });
    const got: [GroupEntry['payload'], string | undefined][] = [];
    const consumer = await consumerSide.consume('g', ({ payload }) => void got.push([payload, store.getStore()]), { start: 'head', consumer: 'c1', beatMs: 50 });
    await until(() => got.length === 3);
    await consumer.close();
    expect(got).toEqual([
      [{ n: '1' }, `one:${TP}`],
      [{ n: '2' }, 'one:-'],
      [{ n: '3' }, 'one:-'],
    ]);
    expect(calls.map((c) => [c.stream, c.group, c.consumer, c.batch, c.entries.map((e) => [e.id, e.attempts, e.trace])])).toEqual([
      ['audit', 'g', 'c1', false, [[a, 1, { traceparent: TP }]]],
      ['audit', 'g', 'c1', false, [[foreign, 1, undefined]]],
      ['audit', 'g', 'c1', false, [[expect.any(String), 1, undefined]]],
    ]);
  });

  it('a batch handler is one process call over the read, inside enter, with each entry\'s context', async () => {
    const queue = uniqueName('tc-batch');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    fillCarriers(queue, { traceparent: TP });
    const ids = await stream.appendBatch([{ n: '1' }, { n: '2' }]);
    const store = new AsyncLocalStorage<string>();
    const calls = enterCalls(queue, store);
    const got: [GroupEntry['payload'][], string | undefined][] = [];
    const consumer = await stream.consumeBatch('g', (entries) => void got.push([entries.map((e) => e.payload), store.getStore()]), { start: 'head', consumer: 'c1', beatMs: 50 });
    await until(() => got.length === 1);
    await consumer.close();
    expect(got).toEqual([[[{ n: '1' }, { n: '2' }], `batch:${TP},${TP}`]]);
    expect(calls.map((c) => [c.batch, c.entries.map((e) => e.id)])).toEqual([[true, ids]]);
  });

  it('a handler that throws fails its process call and the entry stays pending', async () => {
    const queue = uniqueName('tc-throw');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    const errors: unknown[] = [];
    const error = (ctx: StreamProcessTraceContext): void => {
      if (ctx.queue === queue) errors.push(ctx.error);
    };
    listen(traces.streamProcess.error, error);
    await stream.append({ n: '1' });
    const consumer = await stream.consume('g', () => {
      throw new Error('boom');
    }, { start: 'head', consumer: 'c1', beatMs: 50 });
    await until(() => errors.length === 1);
    await consumer.close();
    expect((errors[0] as Error).message).toBe('boom');
    expect((await stream.lag('g'))[0]?.pending).toBe(1);
  });

  it('a dead letter of a stream that carries trace context reads back without the trace fields', async () => {
    const queue = uniqueName('tc-dead');
    const stream = (await Bus.open(queue, { connection: conn })).stream('audit', { traceContext: true });
    fillCarriers(queue, { traceparent: TP });
    const id = await stream.append({ n: '1' });
    const consumer = await stream.consume('g', () => ({ deadLetter: 'no' }), { start: 'head', consumer: 'c1', beatMs: 50 });
    await until(() => consumer.stats().deadLettered === 1);
    await consumer.close();
    expect((await stream.deadLetters()).map((d) => [d.id, d.payload])).toEqual([[id, { n: '1' }]]);
  });
});
