/**
 * Every time-like option of the bus is bounded: at its bound it is admitted, past it the call is
 * refused with a typed error naming the option and the bound, before anything is written.
 */
import { Connection, MAX_SPAN_MS, MAX_TIMER_MS, OptionRangeError } from '@echo/protocol/bus';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, type StreamBus } from '../src/index.js';

let server: RedisServer;
let conn: Connection;
let bus: StreamBus;
let queueBus: Bus;
beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
  bus = await Bus.open({ connection: conn });
  queueBus = await Bus.open('orders', { connection: conn });
  await bus.stream('audit').append({ seeded: 'yes' });
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

const SPAN = MAX_SPAN_MS;
const TIMER = MAX_TIMER_MS;
const audit = () => bus.stream('audit');
let groups = 0;
const consumed = async (options: object): Promise<void> => {
  const consumer = await audit().consume(`g${String(++groups)}`, () => undefined, { start: 'new', consumer: 'c', ...options });
  await consumer.close();
};
const later = <T>(run: () => T): Promise<T> => Promise.resolve().then(run);

interface Row {
  readonly label: string;
  readonly option: string;
  readonly where: string;
  readonly max: number;
  readonly ok: () => Promise<unknown>;
  readonly over: () => Promise<unknown>;
}

const rows: readonly Row[] = [
  { label: 'stream dedupWindowMs', option: 'dedupWindowMs', where: 'stream options', max: SPAN, ok: () => audit().append({ a: '1' }, { msgId: 'm1' }).then(() => bus.stream('audit', { dedupWindowMs: SPAN }).append({ a: '1' }, { msgId: 'm2' })), over: () => later(() => bus.stream('audit', { dedupWindowMs: SPAN + 1 })) },
  { label: 'tail blockMs', option: 'blockMs', where: 'tail options', max: TIMER, ok: () => audit().tail({ blockMs: TIMER }).close(), over: () => later(() => audit().tail({ blockMs: TIMER + 1 })) },
  { label: 'consume minIdleMs', option: 'minIdleMs', where: 'consume options', max: SPAN, ok: () => consumed({ minIdleMs: SPAN }), over: () => consumed({ minIdleMs: SPAN + 1 }) },
  { label: 'consume beatMs', option: 'beatMs', where: 'consume options', max: TIMER, ok: () => consumed({ beatMs: TIMER }), over: () => consumed({ beatMs: TIMER + 1 }) },
  { label: 'consume backoff', option: 'backoff[1]', where: 'consume options', max: SPAN, ok: () => consumed({ minIdleMs: SPAN, backoff: [10, SPAN] }), over: () => consumed({ backoff: [10, SPAN + 1] }) },
  { label: 'retention intervalMs', option: 'intervalMs', where: 'retention options', max: TIMER, ok: () => later(() => queueBus.retention([{ name: 'audit', window: { maxlen: 10 } }], { intervalMs: TIMER })), over: () => later(() => queueBus.retention([{ name: 'audit', window: { maxlen: 10 } }], { intervalMs: TIMER + 1 })) },
  { label: 'retention minid.ago', option: 'ago', where: 'window.minid', max: SPAN, ok: () => queueBus.retention([{ name: 'audit', window: { minid: { ago: SPAN } } }]).tick(), over: () => later(() => queueBus.retention([{ name: 'audit', window: { minid: { ago: SPAN + 1 } } }])) },
];

describe('time-like bus options are bounded', () => {
  it.each(rows)('$label: at the bound admitted, past it refused and nothing written', async (row) => {
    await row.ok();
    const before = await keyspace();
    const error: unknown = await row.over().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OptionRangeError);
    const refused = error as OptionRangeError;
    expect(refused.option).toBe(row.option);
    expect(refused.where).toBe(row.where);
    expect(refused.max).toBe(row.max);
    expect(refused.message).toContain(String(row.max));
    expect(await keyspace()).toEqual(before);
  });
});
