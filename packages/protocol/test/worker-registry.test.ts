import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { queueKeys } from '../src/keys/index.js';
import * as t from '../src/transitions/index.js';
import { execute } from '../src/transitions/transition.js';

let conn: Connection;

beforeAll(async () => {
  const server = await useRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

describe('worker registry [TS]', () => {
  it('worker_beat writes the entry under server time; worker_list answers the live ones with their description', async () => {
    const queue = uniqueName('workers');
    const k = queueKeys(queue);
    const [before] = (await conn.command('TIME')) as [string, string];
    const lapses = await execute(conn, t.workerBeat({ queue, id: 'w1', ttlMs: 5000, info: '{"n":1}' }));
    expect(lapses).toBeGreaterThanOrEqual(Number(before) * 1000 + 5000);
    await execute(conn, t.workerBeat({ queue, id: 'w2', ttlMs: 9000, info: '{"n":2}' }));
    const list = await execute(conn, t.workerList({ queue, limit: 10 }));
    expect(list.workers.map((w) => [w.id, w.info])).toEqual([
      ['w1', '{"n":1}'],
      ['w2', '{"n":2}'],
    ]);
    expect(list.workers[0]?.lapsesAt).toBe(lapses);
    expect(list.now).toBeLessThan(lapses);
    // A beat replaces the description and moves the lapse time.
    const again = await execute(conn, t.workerBeat({ queue, id: 'w1', ttlMs: 20_000, info: '{"n":3}' }));
    expect(again).toBeGreaterThan(lapses);
    expect(await conn.command('HGET', k.workersInfo, 'w1')).toBe('{"n":3}');
    expect(await conn.command('ZCARD', k.workers)).toBe(2);
  });

  it('a lapsed entry is left out of the list at once and dropped by the next beat of anyone', async () => {
    const queue = uniqueName('workers');
    const k = queueKeys(queue);
    // 'live' beats first: a beat drops every lapsed entry, so a slow machine must not let the
    // second beat land after 'dead' lapsed. Then wait for the lapse itself, however long it takes.
    await execute(conn, t.workerBeat({ queue, id: 'live', ttlMs: 60_000, info: 'y' }));
    await execute(conn, t.workerBeat({ queue, id: 'dead', ttlMs: 50, info: 'x' }));
    const listed = async () => (await execute(conn, t.workerList({ queue, limit: 10 }))).workers.map((w) => w.id);
    await waitFor(async () => (await listed()).length === 1, { timeoutMs: 30_000, what: "'dead' to lapse out of the list" });
    expect(await listed()).toEqual(['live']);
    expect(await conn.command('ZCARD', k.workers)).toBe(2);
    await execute(conn, t.workerBeat({ queue, id: 'live', ttlMs: 60_000, info: 'y' }));
    expect(await conn.command('ZRANGE', k.workers, 0, -1)).toEqual(['live']);
    expect(await conn.command('HKEYS', k.workersInfo)).toEqual(['live']);
  });

  it('worker_leave removes the entry at once; the list honours its limit', async () => {
    const queue = uniqueName('workers');
    const k = queueKeys(queue);
    for (const id of ['a', 'b', 'c']) await execute(conn, t.workerBeat({ queue, id, ttlMs: 60_000, info: id }));
    expect((await execute(conn, t.workerList({ queue, limit: 2 }))).workers).toHaveLength(2);
    expect(await execute(conn, t.workerLeave({ queue, id: 'b' }))).toBe(true);
    expect(await execute(conn, t.workerLeave({ queue, id: 'b' }))).toBe(false);
    expect((await execute(conn, t.workerList({ queue, limit: 10 }))).workers.map((w) => w.id).sort()).toEqual(['a', 'c']);
    expect(await conn.command('HEXISTS', k.workersInfo, 'b')).toBe(0);
  });
});
