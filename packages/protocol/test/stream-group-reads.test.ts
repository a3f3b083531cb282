import { uniqueName, useRedis, type RedisTarget } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, MalformedReplyError, reads } from './support.js';

describe('group read builders (argument shapes, no server)', () => {
  it('build XREADGROUP, XINFO GROUPS/CONSUMERS and XPENDING', () => {
    expect(reads.xreadgroup({ key: 'k', group: 'g', consumer: 'c' })).toMatchObject({ command: 'XREADGROUP', args: ['GROUP', 'g', 'c', 'STREAMS', 'k', '>'] });
    expect(reads.xreadgroup({ key: 'k', group: 'g', consumer: 'c', blockMs: 100, count: 5, after: '0-0' })).toMatchObject({
      args: ['GROUP', 'g', 'c', 'BLOCK', '100', 'COUNT', '5', 'STREAMS', 'k', '0-0'],
    });
    expect(reads.xinfoGroups({ key: 'k' })).toMatchObject({ command: 'XINFO', args: ['GROUPS', 'k'] });
    expect(reads.xinfoConsumers({ key: 'k', group: 'g' })).toMatchObject({ command: 'XINFO', args: ['CONSUMERS', 'k', 'g'] });
    expect(reads.xpendingSummary({ key: 'k', group: 'g' })).toMatchObject({ command: 'XPENDING', args: ['k', 'g'] });
  });

  it('refuse bad arguments before anything is sent', () => {
    expect(() => reads.xreadgroup({ key: 'k', group: '', consumer: 'c' })).toThrow(/group/);
    expect(() => reads.xreadgroup({ key: 'k', group: 'g', consumer: 'c', after: '$' })).toThrow(/after/);
    expect(() => reads.xreadgroup({ key: 'k', group: 'g', consumer: 'c', count: 0 })).toThrow(/count/);
    expect(() => reads.xinfoConsumers({ key: 'k', group: '' })).toThrow(/group/);
  });

  it('refuse malformed replies with MalformedReplyError', () => {
    expect(() => reads.xinfoGroups({ key: 'k' }).parse('OK')).toThrow(MalformedReplyError);
    expect(() => reads.xinfoGroups({ key: 'k' }).parse([['name', 'g', 'consumers', 'x', 'pending', 0, 'last-delivered-id', '0-0']])).toThrow(MalformedReplyError);
    expect(() => reads.xinfoConsumers({ key: 'k', group: 'g' }).parse([['name']])).toThrow(MalformedReplyError);
    expect(() => reads.xpendingSummary({ key: 'k', group: 'g' }).parse([0, null, null])).toThrow(MalformedReplyError);
    expect(() => reads.xpendingSummary({ key: 'k', group: 'g' }).parse([1, 'x', '1-0', []])).toThrow(MalformedReplyError);
  });
});

let target: RedisTarget;
let conn: Connection;
const clients: Redis[] = [];

beforeAll(async () => {
  target = await useRedis();
  conn = await Connection.connect(target.url);
});
afterAll(async () => {
  await conn.close();
  for (const c of clients) c.disconnect();
});

type Send = (name: string, ...args: string[]) => Promise<unknown>;

function driver(options: Parameters<RedisTarget['client']>[0]): Send {
  const client = target.client(options) as unknown as Redis;
  clients.push(client);
  return (name, ...args) => client.call(name, ...args);
}

const shapes: [string, () => Send][] = [
  ['RESP2', () => driver({ protocol: 2 })],
  ['RESP3 (default mapping)', () => driver({ protocol: 3 })],
  ['RESP3 (resp3 mapping)', () => driver({ protocol: 3, replyMapping: 'resp3' })],
  ['the Connection', () => (name, ...args) => conn.command(name, ...args)],
];

describe.each(shapes)('group reads against a live server over %s', (_shape, make) => {
  it('parse XREADGROUP, XINFO GROUPS, XINFO CONSUMERS and XPENDING', async () => {
    const send = make();
    const key = uniqueName('stream');
    const a = String(await send('XADD', key, '*', 'f', 'a'));
    const b = String(await send('XADD', key, '*', 'f', 'b'));
    await send('XGROUP', 'CREATE', key, 'g', '0');
    const sendRead = async <T>(r: reads.Read<T>): Promise<T> => r.parse(await send(r.command, ...r.args.map(String)));
    expect(await sendRead(reads.xreadgroup({ key, group: 'g', consumer: 'c1', count: 1 }))).toEqual([{ id: a, fields: ['f', 'a'] }]);
    expect(await sendRead(reads.xinfoGroups({ key }))).toEqual([{ name: 'g', consumers: 1, pending: 1, lastDeliveredId: a, lag: 1, entriesRead: 1 }]);
    const [consumer] = await sendRead(reads.xinfoConsumers({ key, group: 'g' }));
    expect(consumer).toMatchObject({ name: 'c1', pending: 1 });
    expect(consumer?.idleMs).toBeGreaterThanOrEqual(0);
    expect(await sendRead(reads.xpendingSummary({ key, group: 'g' }))).toEqual({ count: 1, oldest: a, newest: a });
    expect(await sendRead(reads.xreadgroup({ key, group: 'g', consumer: 'c1', blockMs: 1, after: '0-0' }))).toEqual([{ id: a, fields: ['f', 'a'] }]);
    await send('XACK', key, 'g', a);
    expect(await sendRead(reads.xpendingSummary({ key, group: 'g' }))).toEqual({ count: 0, oldest: undefined, newest: undefined });
    expect((await sendRead(reads.xreadgroup({ key, group: 'g', consumer: 'c2' }))).map((e) => e.id)).toEqual([b]);
  });
});
