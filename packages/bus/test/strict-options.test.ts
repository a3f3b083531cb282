/**
 * Every options object of the bus refuses a key it does not know, before anything is written,
 * naming the key, and for the names users bring from raw Redis Streams, NATS JetStream or BullMQ,
 * the option that means it here.
 */
import { Connection, UnknownOptionError } from '@echo/protocol/bus';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { append, appendUnique, Bus, type StreamBus } from '../src/index.js';

let server: RedisServer;
let conn: Connection;
let queueBus: Bus;
let streamBus: StreamBus;

beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
  queueBus = await Bus.open('orders', { connection: conn });
  streamBus = await Bus.open({ connection: conn });
  // Something on the server, so "unchanged" is not trivially the empty keyspace.
  await streamBus.stream('audit').append({ seeded: 'yes' });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function keyspace(): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await conn.command('SCAN', cursor, 'MATCH', '*', 'COUNT', '1000')) as [string, string[]];
    found.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

/** Options as a JavaScript caller or a spread config passes them: no type holds them back. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the one cast stands in for every options type of the table
function loose<T>(options: Record<string, unknown>): T {
  return options as T;
}

const audit = () => streamBus.stream('audit');
const handler = (): void => undefined;

/** [the call, the refused key, a phrase of the hint (undefined: an unknown name, no hint)]. */
const rows: readonly [string, () => unknown, string, string | undefined][] = [
  ['Bus.open maxlen', () => Bus.open(loose({ connection: conn, maxlen: 1000 })), 'maxlen', 'stream.trim({ maxlen })'],
  ['Bus.open url', () => Bus.open(loose({ url: server.url })), 'url', 'connect: url'],
  ['Bus.open queue', () => Bus.open(loose({ connection: conn, queue: 'orders' })), 'queue', 'first argument'],
  ['Bus.open(queue) maxPayloadBytes', () => Bus.open('orders', loose({ connection: conn, maxPayloadBytes: 10 })), 'maxPayloadBytes', 'maxEntryBytes'],
  ['Bus.open connect.tls', () => Bus.open({ connect: loose({ url: server.url, tls: {} }) }), 'tls', 'no TLS option'],
  ['stream MAXLEN', () => streamBus.stream('audit', loose({ MAXLEN: 10 })), 'MAXLEN', 'bus.retention'],
  ['stream max_age', () => queueBus.stream('audit', loose({ max_age: 60_000 })), 'max_age', 'minid: { ago'],
  ['read start', () => audit().read(loose({ start: '-' })), 'start', 'from here'],
  ['read limit', () => audit().read(loose({ limit: 10 })), 'limit', 'count here'],
  ['readWindow COUNT', () => audit().readWindow(0, Date.now(), loose({ COUNT: 5 })), 'COUNT', 'count here'],
  ['readSince limit', () => audit().readSince(0, loose({ limit: 5 })), 'limit', 'count here'],
  ['tail block', () => audit().tail(loose({ block: 100 })), 'block', 'blockMs'],
  ['tail deliver_policy', () => audit().tail(loose({ deliver_policy: 'all' })), 'deliver_policy', "'head'"],
  ['consume durable_name', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', durable_name: 'g' })), 'durable_name', 'a group is the durable'],
  ['consume durable', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', durable: 'g' })), 'durable', 'a group is the durable'],
  ['consume ack_wait', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', ack_wait: 30_000 })), 'ack_wait', 'minIdleMs'],
  ['consume max_deliver', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', max_deliver: 5 })), 'max_deliver', 'maxDeliveries'],
  ['consume attempts (BullMQ)', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', attempts: 5 })), 'attempts', 'maxDeliveries'],
  ['consume noack', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', noack: true })), 'noack', 'stream.tail()'],
  ['consume block', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', block: 1000 })), 'block', 'beatMs'],
  ['consumeBatch deliver_policy', () => audit().consumeBatch('g', handler, loose({ start: 'head', consumer: 'c', deliver_policy: 'all' })), 'deliver_policy', 'start here'],
  ['consume start { time }', () => audit().consume('g', handler, { start: loose({ time: Date.now() }), consumer: 'c' }), 'time', '{ at: Date | Unix ms }'],
  ['openGroup start { from }', () => audit().openGroup('g', loose({ from: 'EVTxxxxxxxxxxx' })), 'from', '{ after: evtId }'],
  ['tail from { ms }', () => audit().tail({ from: loose({ ms: 0 }) }), 'ms', '{ at: Date | Unix ms }'],
  ['consume typo', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', concurency: 4 })), 'concurency', undefined],
  ['deadLetters limit', () => audit().deadLetters(loose({ limit: 5 })), 'limit', 'count here'],
  ['redrive id', () => audit().redrive(loose({ id: 'EVTxxxxxxxxxxx' })), 'id', '{ ids: [id] }'],
  ['trim MAXLEN', () => audit().trim(loose({ MAXLEN: 10 })), 'MAXLEN', 'maxlen here'],
  ['retention target queue', () => queueBus.retention([loose({ name: 'audit', queue: 'orders', window: { maxlen: 1 } })]), 'queue', "bus's own stream"],
  ['retention window MINID', () => streamBus.retention([{ name: 'audit', window: loose({ MINID: 0 }) }]), 'MINID', 'minid here'],
  ['retention interval', () => streamBus.retention([], loose({ interval: 100 })), 'interval', 'intervalMs'],
  ['events name', () => queueBus.events(loose({ name: 'listener' })), 'name', 'connectionName'],
  ['stream duplicate_window (JetStream)', () => streamBus.stream('audit', loose({ duplicate_window: 120_000 })), 'duplicate_window', 'dedupWindowMs'],
  ['append Nats-Msg-Id', () => audit().append({ a: '1' }, loose({ 'Nats-Msg-Id': 'm1' })), 'Nats-Msg-Id', 'msgId'],
  ['append jobId (BullMQ)', () => audit().append({ a: '1' }, loose({ jobId: 'm1' })), 'jobId', 'msgId'],
  ['append dedupWindowMs', () => audit().append({ a: '1' }, loose({ msgId: 'm1', dedupWindowMs: 10 })), 'dedupWindowMs', 'stream option'],
  ['appendBatch msgId', () => audit().appendBatch([{ a: '1' }], loose({ msgId: 'm1' })), 'msgId', 'msgIds'],
  ['appendUnique (functional) messageId', () => appendUnique(conn, 'orders', 'audit', { a: '1' }, loose({ msgId: 'm', messageId: 'm1' })), 'messageId', 'msgId'],
  ['consume partitionKey (Kafka)', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', partitionKey: 'acct' })), 'partitionKey', 'orderBy'],
  ['consume key', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', key: 'acct' })), 'key', 'orderBy'],
  ['consume BackOff (JetStream)', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', BackOff: [1000] })), 'BackOff', 'backoff'],
  ['consume retryDelays', () => audit().consume('g', handler, loose({ start: 'head', consumer: 'c', retryDelays: [1000] })), 'retryDelays', 'backoff'],
  ['append (functional) maxlen', () => append(conn, 'orders', 'audit', { a: '1' }, loose({ maxlen: 5 })), 'maxlen', 'bus.retention'],
];

describe('strict bus options', () => {
  it.each(rows)('%s is refused', async (_label, call, key, hint) => {
    const before = await keyspace();
    let error: unknown;
    try {
      await call();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownOptionError);
    const refused = error as UnknownOptionError;
    expect(refused.option).toBe(key);
    if (hint === undefined) expect(refused.message).toContain('known:');
    else expect(refused.hint).toContain(hint);
    expect(await keyspace()).toEqual(before);
  });
});
