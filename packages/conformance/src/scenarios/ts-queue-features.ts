/** TS-only queue features of issue 29: deadlines for waiting jobs. */
import assert from 'node:assert/strict';
import type { Scenario } from '../scenario.js';
import { count, hgetall, present, zrange } from '../support.js';

export const tsQueueFeatures: Scenario[] = [
  {
    name: 'ts_expire_at_claim',
    family: 'ts',
    contract: 'a row with expire_at (server ms; expire_in at admission is written as expire_at) past due is never leased: claim, bclaim and the lane claims settle it in the same script as state=expired with finished_at, index it in emq:{q}:expired by finish time, release its de:<did>, and lease the next job instead',
    async run(env) {
      const q = await env.queue();
      const did = `x${env.mintId('JOB')}`;
      const late = await q.enqueue('late', { expireAt: 1, dedupId: did });
      assert.equal((await hgetall(env, q.keys.job(late.id))).expire_at, '1');
      const live = await q.enqueue('live', { expireInMs: 60_000 });
      const at = Number((await hgetall(env, q.keys.job(live.id))).expire_at);
      assert.ok(at > Date.now() - 60_000, 'expire_in is stored as an absolute expire_at');
      assert.equal(present(await q.leases().claim(30_000), 'the live job').id, live.id);
      const row = await hgetall(env, q.keys.job(late.id));
      assert.equal(row.state, 'expired');
      assert.ok(Number(row.finished_at) > 0);
      assert.deepEqual(await zrange(env, q.keys.expired), [late.id]);
      assert.equal(await count(env, 'EXISTS', q.keys.dedup(did)), 0);
      const batchLate = await q.enqueue('b-late', { expireAt: 1 });
      const batchLive = await q.enqueue('b-live');
      assert.deepEqual((await q.leases().claimBatch(5, 30_000)).map((j) => j.id), [batchLive.id]);
      const laneLate = await q.enqueueInLane('tenant', 'l-late', { expireAt: 1 });
      const laneLive = await q.enqueueInLane('tenant', 'l-live');
      assert.equal(present(await q.leases().laneClaim(30_000), 'the live lane job').id, laneLive.id);
      assert.deepEqual(new Set(await zrange(env, q.keys.expired)), new Set([late.id, batchLate.id, laneLate.id]));
      assert.equal(await q.getState(laneLate.id), 'expired');
    },
  },
];
