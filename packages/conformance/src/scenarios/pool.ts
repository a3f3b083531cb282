/** H. Pool (56–57), ported as handles round-robin over two connections. */
import assert from 'node:assert/strict';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { count, hgetall, present, zscore } from '../support.js';

async function listed(env: ScenarioEnv, key: string): Promise<unknown> {
  return env.command('ZRANGE', key, '+', '-', 'BYLEX', 'REV');
}

export const pool: Scenario[] = [
  {
    no: 56,
    name: 'pool_enqueue',
    family: 'pool',
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
      const claimed = present(await b.leases().claim(30_000), 'a claim through the other member');
      assert.deepEqual([claimed.id, claimed.attempts], [id, 1]);
    },
  },
  {
    no: 57,
    name: 'pool_order',
    family: 'pool',
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
