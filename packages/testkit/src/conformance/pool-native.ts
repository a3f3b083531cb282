/** H. Pool (56–57), ported as handles round-robin over two connections, and I. Native field expiry (58–59). */
import assert from 'node:assert/strict';
import type { Scenario, ScenarioEnv } from './scenario.js';
import { assertError, count, hgetall, present, rejection, until, zscore } from './support.js';

/** The reason the native-expiry scenarios report on a server without hash-field TTL. */
export const NEEDS_FIELD_TTL = 'needs Redis 7.4+ hash-field TTL';

/** Skips unless the server knows HPEXPIRE (Redis 7.4+, Valkey 9+). */
async function fieldTtl(env: ScenarioEnv): Promise<string | undefined> {
  const info = (await env.command('COMMAND', 'INFO', 'HPEXPIRE')) as unknown[];
  return Array.isArray(info) && info[0] !== null && info[0] !== undefined ? undefined : NEEDS_FIELD_TTL;
}

async function listed(env: ScenarioEnv, key: string): Promise<unknown> {
  return env.command('ZRANGE', key, '+', '-', 'BYLEX', 'REV');
}

export const pool: Scenario[] = [
  {
    no: 56,
    name: 'pool_enqueue',
    family: 'pool',
    needs: ['openPool'],
    contract: 'enqueueing round-robin over two connections behaves like one: a duplicate landing on the other member reports duplicate; the row is the usual three fields, one pending entry at score 0',
    async run(env) {
      const members = await env.pool(2);
      const [a, b] = [present(members[0], 'pool member 1'), present(members[1], 'pool member 2')];
      const id = env.mintId('JOB');
      assert.equal((await a.enqueue({ n: 1 }, { id })).status, 'enqueued');
      const again = await b.enqueue({ n: 2 }, { id });
      assert.deepEqual([again.status, again.id], ['duplicate', id]);
      assert.deepEqual(await hgetall(env, a.keys.job(id)), { state: 'pending', attempts: '0', payload: a.codec.encode({ n: 1 }) });
      assert.equal(await zscore(env, a.keys.pending, id), 0);
      assert.equal(await count(env, 'ZCARD', a.keys.pending), 1);
      const claimed = present(await b.claim(30_000), 'a claim through the other member');
      assert.deepEqual([claimed.id, claimed.attempts], [id, 1]);
    },
  },
  {
    no: 57,
    name: 'pool_order',
    family: 'pool',
    needs: ['openPool'],
    contract: 'five ids enqueued round-robin across the pool list by REV BYLEX in exactly reverse mint order, and so do ids enqueued in shuffled order',
    async run(env) {
      const members = await env.pool(2);
      const member = (i: number) => present(members[i % members.length], 'a pool member');
      const ids = Array.from({ length: 5 }, () => env.mintId('JOB'));
      for (const [i, id] of ids.entries()) await member(i).enqueue(i, { id });
      const q = member(0);
      assert.deepEqual(await listed(env, q.keys.pending), [...ids].reverse());

      const shuffled = await env.pool(2, 'shuffled');
      const more = Array.from({ length: 5 }, () => env.mintId('JOB'));
      for (const [i, at] of [3, 0, 4, 1, 2].entries()) await present(shuffled[i % 2], 'a pool member').enqueue(at, { id: present(more[at], 'an id') });
      assert.deepEqual(await listed(env, present(shuffled[0], 'a pool member').keys.pending), [...more].reverse());
    },
  },
];

export const nativeExpiry: Scenario[] = [
  {
    no: 58,
    name: 'native_lock_field',
    family: 'native',
    needs: ['openQueue'],
    contract: 'a lock field on the row has a readable hash-field TTL (HPTTL > 0); moved into the past it disappears without any sweep, and state is unaffected',
    probe: fieldTtl,
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('n');
      const row = q.keys.job(id);
      await env.command('HSET', row, 'lock', '1');
      assert.deepEqual(await env.command('HPEXPIRE', row, 60_000, 'FIELDS', 1, 'lock'), [1]);
      const [ttl] = (await env.command('HPTTL', row, 'FIELDS', 1, 'lock')) as number[];
      assert.ok(Number(ttl) > 0, `HPTTL ${String(ttl)} > 0`);
      await env.command('HPEXPIREAT', row, 1, 'FIELDS', 1, 'lock');
      assert.equal(await count(env, 'HEXISTS', row, 'lock'), 0);
      assert.equal(await env.command('HGET', row, 'state'), 'pending');
      assert.equal(await q.getState(id), 'pending');
    },
  },
  {
    no: 59,
    name: 'native_lock_refuses',
    family: 'native',
    needs: ['openQueue'],
    contract: 'a lock field on its own makes removeJob fail with LockedError and the job stays pending; once the field expires, remove succeeds and the job reads absent',
    probe: fieldTtl,
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('n');
      const row = q.keys.job(id);
      await env.command('HSET', row, 'lock', '1');
      assert.deepEqual(await env.command('HPEXPIRE', row, 150, 'FIELDS', 1, 'lock'), [1]);
      assertError(await rejection(q.remove(id)), 'LockedError', { errorClass: 'EMQLOCK' });
      assert.equal(await q.getState(id), 'pending');
      await until(async () => (await count(env, 'HEXISTS', row, 'lock')) === 0, 'the lock field to expire', 2000);
      await q.remove(id);
      assert.equal(await q.getState(id), 'absent');
    },
  },
];
