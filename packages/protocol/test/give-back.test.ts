/**
 * `give_back` [TS]: a worker hands back jobs it claimed and will not run, each fenced by its token,
 * in one step; they go back where a claim finds them, as if never claimed, with no failure counted.
 */
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { mintId } from '../src/ids/index.js';
import { queueKeys } from '../src/keys/index.js';
import * as t from '../src/transitions/index.js';
import { execute } from '../src/transitions/transition.js';

let conn: Connection;

beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

describe('give_back [TS]', () => {
  it('binds the queue keys and the id/token pairs (no server)', () => {
    const id = mintId('JOB');
    const call = t.giveBack({ queue: 'orders', jobs: [{ id, attempts: 3 }] });
    expect(call.script.name).toBe('give_back');
    expect(call.args).toEqual([id, '3']);
    expect(call.keys).toEqual(['active', 'pending', 'gactive', 'glimit', 'ring', 'wake', 'paused', 'job:', 'g:', 'events', 'meta', 'journal'].map((k) => `emq:{orders}:${k}`));
    expect(() => t.giveBack({ queue: 'orders', jobs: [{ id: 'nope', attempts: 1 }] })).toThrow();
  });

  it('puts held jobs back in pending ahead of later ones, attempts kept, no failure counted; the next claim takes them first', async () => {
    const queue = uniqueName('giveback');
    const k = queueKeys(queue);
    const ids = [mintId('JOB'), mintId('JOB'), mintId('JOB')];
    for (const id of ids) await execute(conn, t.enqueue({ queue, id, payload: '{}' }));
    const claimed = await execute(conn, t.claimBatch({ queue, leaseMs: 30_000, size: 2, markerTtlMs: 60_000 }));
    expect(claimed.map((c) => c.id)).toEqual(ids.slice(0, 2));
    await conn.command('DEL', k.wake);
    const given = await execute(conn, t.giveBack({ queue, jobs: claimed }));
    expect(given).toEqual(ids.slice(0, 2));
    expect(await conn.command('ZCARD', k.active)).toBe(0);
    expect(await conn.command('ZRANGE', k.pending, 0, -1)).toEqual(ids);
    for (const id of given) {
      expect(await conn.command('HMGET', k.job(id), 'state', 'attempts', 'last_error', 'stalled')).toEqual(['pending', '1', null, null]);
      expect(await conn.command('EXISTS', k.jobSub(id, 'lock'))).toBe(0);
    }
    expect(await conn.command('HGET', k.metricsFailed, 'count')).toBe(null);
    // A parked consumer is woken to take them now.
    expect(await conn.command('LLEN', k.wake)).toBe(1);
    const again = await execute(conn, t.claim({ queue, leaseMs: 30_000 }));
    expect(again?.id).toBe(ids[0]);
    expect(again?.attempts).toBe(2);
  });

  it('a wrong token, a job not active and a gone job change nothing', async () => {
    const queue = uniqueName('giveback');
    const k = queueKeys(queue);
    const id = mintId('JOB');
    await execute(conn, t.enqueue({ queue, id, payload: '{}' }));
    const held = await execute(conn, t.claim({ queue, leaseMs: 30_000 }));
    if (!held) throw new Error('nothing claimed');
    const before = await conn.command('ZSCORE', k.active, id);
    // A stale holder (token 0 is no claim's) cannot give back a job someone else holds.
    expect(await execute(conn, t.giveBack({ queue, jobs: [{ id, attempts: held.attempts + 1 }, { id: mintId('JOB'), attempts: 1 }] }))).toEqual([]);
    expect(await conn.command('ZSCORE', k.active, id)).toBe(before);
    expect(await conn.command('HMGET', k.job(id), 'state', 'attempts')).toEqual(['active', '1']);
    expect(await conn.command('ZCARD', k.pending)).toBe(0);
    // Once given back it is not active: a second give-back (a resend) changes nothing.
    expect(await execute(conn, t.giveBack({ queue, jobs: [held] }))).toEqual([id]);
    expect(await execute(conn, t.giveBack({ queue, jobs: [held] }))).toEqual([]);
    expect(await conn.command('ZRANGE', k.pending, 0, -1)).toEqual([id]);
  });

  it('a lane job goes back to its lane and gives its lane slot back', async () => {
    const queue = uniqueName('giveback');
    const k = queueKeys(queue);
    const g = mintId('GRP');
    const id = mintId('JOB');
    await execute(conn, t.laneEnqueue({ queue, id, payload: '{}', group: g }));
    const held = await execute(conn, t.laneClaim({ queue, leaseMs: 30_000 }));
    expect(held?.id).toBe(id);
    expect(await conn.command('HGET', k.gactive, g)).toBe('1');
    if (!held) throw new Error('nothing claimed');
    expect(await execute(conn, t.giveBack({ queue, jobs: [held] }))).toEqual([id]);
    expect(await conn.command('HGET', k.gactive, g)).toBe(null);
    expect(await conn.command('ZRANGE', k.lane(g), 0, -1)).toEqual([id]);
    expect(await conn.command('LRANGE', k.ring, 0, -1)).toEqual([g]);
    expect((await execute(conn, t.laneClaim({ queue, leaseMs: 30_000 })))?.id).toBe(id);
  });
});
