/** F. Lanes: control and recovery (44–46), and J. Weighted lanes (60–61). */
import assert from 'node:assert/strict';
import type { Scenario } from '../scenario.js';
import { count, hgetall, lrange, present, sleep, zscore } from '../support.js';
import type { ClaimedJob, Queue } from '@echo/queue';

/** Claims with `claim` and completes everything left, one rotation at a time; answers how many ran. */
export async function drainAll(q: Queue, claim: () => Promise<readonly ClaimedJob<unknown>[]>): Promise<number> {
  let served = 0;
  for (;;) {
    const batch = await claim();
    if (batch.length === 0) return served;
    for (const job of batch) await q.leases().complete(job);
    served += batch.length;
  }
}

/** Admits `n` jobs into lane `g`, one script call each. */
export async function fillLane(q: Queue, g: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await q.enqueueInLane(g, i);
}

export const lanes: Scenario[] = [
  {
    no: 44,
    name: 'reassign',
    family: 'lanes',
    contract: 'a pending job moves from lane src to dst at score 0 and its row group becomes dst; again is noop; claimed under dst with gactive[dst]=1, none for src; complete clears both',
    async run(env) {
      const q = await env.queue();
      const [src, dst] = [env.mintId('PRT'), env.mintId('PRT')];
      const { id } = await q.enqueueInLane(src, 'job');
      assert.deepEqual(await lrange(env, q.keys.ring), [src]);
      assert.equal(await q.laneReassign(id, dst), 'reassigned');
      assert.equal(await zscore(env, q.keys.lane(dst), id), 0);
      assert.equal(await count(env, 'EXISTS', q.keys.lane(src)), 0);
      assert.equal(await env.command('HGET', q.keys.job(id), 'group'), dst);
      assert.deepEqual(await lrange(env, q.keys.ring), [dst]);
      assert.equal(await q.laneReassign(id, dst), 'noop');
      const served = present(await q.leases().laneClaim(30_000), 'the lane claim');
      assert.deepEqual([served.id, served.payload, served.attempts, served.group], [id, 'job', 1, dst]);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [dst]: '1' });
      assert.equal(await q.leases().laneClaim(30_000), undefined);
      await q.leases().complete(served);
      assert.deepEqual(await hgetall(env, q.keys.gactive), {});
    },
  },
  {
    no: 45,
    name: 'lane_drain',
    family: 'lanes',
    contract: 'draining lane a removes its 2 waiting jobs with rows and logs, the lane and its ring entry; b, the in-flight a-job (gactive 1) and the repeat stay; an unknown lane drains 0',
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      const { id: inFlight } = await q.enqueueInLane(a, 'in-flight');
      const { id: withLogs } = await q.enqueueInLane(a, 'with-logs');
      const { id: plain } = await q.enqueueInLane(a, 'plain');
      const { id: bJob } = await q.enqueueInLane(b, 'b');
      assert.equal(await q.registerRepeat('nightly', { everyMs: 60_000, template: 'tpl' }), 'registered');
      assert.equal((await q.leases().laneClaim(30_000))?.id, inFlight);
      assert.equal(await q.addLog(withLogs, 'line'), 1);
      assert.deepEqual(await lrange(env, q.keys.ring), [b, a]);

      assert.equal(await q.laneDrain(a), 2);
      assert.equal(await count(env, 'EXISTS', q.keys.job(withLogs), q.keys.jobSub(withLogs, 'logs'), q.keys.job(plain)), 0);
      assert.equal(await count(env, 'EXISTS', q.keys.lane(a)), 0);
      assert.deepEqual(await lrange(env, q.keys.ring), [b]);
      assert.equal(await env.command('HGET', q.keys.job(inFlight), 'state'), 'active');
      assert.notEqual(await zscore(env, q.keys.active, inFlight), null);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [a]: '1' });
      assert.equal(await env.command('HGET', q.keys.job(bJob), 'state'), 'pending');
      assert.deepEqual([...(await q.laneDepths([b]))], [1]);
      assert.equal(await count(env, 'ZCARD', q.keys.repeat), 1);

      assert.equal(await q.laneDrain(env.mintId('PRT')), 0);
      assert.deepEqual(await lrange(env, q.keys.ring), [b]);
    },
  },
  {
    no: 46,
    name: 'reap_group',
    family: 'lanes',
    contract: "a reap scoped to g recovers exactly g's lapsed job into its lane at score 0 and drops gactive[g]; h stays active; re-claim gets token 2; an unknown group reaps 0",
    async run(env) {
      const q = await env.queue();
      const [g, h] = [env.mintId('PRT'), env.mintId('PRT')];
      const { id: gJob } = await q.enqueueInLane(g, 'g');
      const { id: hJob } = await q.enqueueInLane(h, 'h');
      assert.equal((await q.leases().laneClaim(30))?.id, gJob);
      assert.equal((await q.leases().laneClaim(30))?.id, hJob);
      await sleep(60);
      assert.equal(await q.maintenance().reapGroup(g), 1);
      assert.equal(await zscore(env, q.keys.lane(g), gJob), 0);
      assert.equal(await count(env, 'ZCARD', q.keys.lane(g)), 1);
      assert.equal(await env.command('HGET', q.keys.job(gJob), 'state'), 'pending');
      assert.equal(await zscore(env, q.keys.active, gJob), null);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [h]: '1' });
      assert.equal(await env.command('HGET', q.keys.job(hJob), 'state'), 'active');
      assert.notEqual(await zscore(env, q.keys.active, hJob), null);
      assert.deepEqual(await lrange(env, q.keys.ring), [g]);

      const again = present(await q.leases().laneClaim(30_000), 'the re-claim');
      assert.deepEqual([again.id, again.payload, again.attempts, again.group], [gJob, 'g', 2, g]);
      await q.leases().complete(again);
      assert.deepEqual(await hgetall(env, q.keys.gactive), { [h]: '1' });
      assert.equal(await q.maintenance().reapGroup(env.mintId('PRT')), 0);
      assert.notEqual(await zscore(env, q.keys.active, hJob), null);
    },
  },
];

export const weightedLanes: Scenario[] = [
  {
    no: 60,
    name: 'weighted_proportion',
    family: 'weighted',
    contract: 'two lanes weighted 3:1, 60 jobs each, over 40 weighted claims: every served job has a lease; light is served; heavy gets 2x..4x light',
    async run(env) {
      const q = await env.queue();
      const [heavy, light] = [env.mintId('PRT'), env.mintId('PRT')];
      await fillLane(q, heavy, 60);
      await fillLane(q, light, 60);
      await q.laneWeight(heavy, 3);
      await q.laneWeight(light, 1);
      const served = new Map<string, number>();
      for (let i = 0; i < 40; i++) {
        for (const job of await q.leases().laneWeightedClaim(30_000)) {
          assert.notEqual(await zscore(env, q.keys.active, job.id), null, `${job.id} has a lease score`);
          const g = present(job.group, 'the served lane');
          served.set(g, (served.get(g) ?? 0) + 1);
        }
      }
      const h = served.get(heavy) ?? 0;
      const l = served.get(light) ?? 0;
      assert.ok(l >= 1, 'the light lane was served');
      assert.ok(h >= 2 * l && h <= 4 * l, `heavy ${h} is between 2x and 4x light ${l}`);
    },
  },
  {
    no: 61,
    name: 'starvation_drill',
    family: 'weighted',
    contract: 'heavy weight 5 with 200 jobs and two light lanes at 1 with 6 each: both light lanes are served within 9 weighted claims; draining leaves every lane at 0',
    async run(env) {
      const q = await env.queue();
      const [heavy, l1, l2] = [env.mintId('PRT'), env.mintId('PRT'), env.mintId('PRT')];
      await fillLane(q, heavy, 200);
      await fillLane(q, l1, 6);
      await fillLane(q, l2, 6);
      await q.laneWeight(heavy, 5);
      await q.laneWeight(l1, 1);
      await q.laneWeight(l2, 1);
      const seen = new Set<string>();
      for (let i = 0; i < 9; i++) {
        for (const job of await q.leases().laneWeightedClaim(30_000)) {
          seen.add(present(job.group, 'the served lane'));
          await q.leases().complete(job);
        }
      }
      assert.ok(seen.has(l1) && seen.has(l2), 'both light lanes were served within 9 claims');
      await drainAll(q, () => q.leases().laneWeightedClaim(30_000));
      assert.deepEqual([...(await q.laneDepths([heavy, l1, l2]))], [0, 0, 0]);
      assert.deepEqual(await lrange(env, q.keys.ring), []);
      assert.deepEqual(await hgetall(env, q.keys.gactive), {});
    },
  },
];
