/** TS-only queue features of issue 29: deadlines for waiting jobs, dedup modes, LIFO and timestamp, a stalled death as a failure,
 * continueParentOnFailure. */
import assert from 'node:assert/strict';
import { entryFields, parseStreamEntries } from '@echo/protocol/extend';
import type { Scenario } from '../scenario.js';
import { count, hgetall, present, until, zrange } from '../support.js';

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
  {
    name: 'ts_dedup_modes',
    family: 'ts',
    contract: 'an admission refused by de:<did> whose option pairs carry dedup_mode changes the parked job in the same script: replace sets its payload while its state is pending or scheduled; extend PEXPIREs the key to dedup_ttl; debounce does both and moves a scheduled parked job to the refused admission due time; without dedup_mode nothing changes',
    async run(env) {
      const q = await env.queue();
      const did = (tag: string): string => `${tag}${env.mintId('JOB')}`;
      const rep = did('r');
      const kept = await q.enqueue('v1', { dedupId: rep, dedupMode: 'replace' });
      assert.equal((await q.enqueue('v2', { dedupId: rep, dedupMode: 'replace' })).status, 'duplicate');
      assert.equal((await hgetall(env, q.keys.job(kept.id))).dedup_mode, 'replace');
      assert.equal((await q.getJob(kept.id))?.payload, 'v2');
      await q.enqueue('v3', { dedupId: rep });
      assert.equal((await q.getJob(kept.id))?.payload, 'v2', 'no mode, no change');
      const deb = did('d');
      const first = await q.enqueue('p1', { dedupId: deb, dedupTtlMs: 60_000, dedupMode: 'debounce', delayMs: 10_000 });
      const due1 = Number(await env.command('ZSCORE', q.keys.schedule, first.id));
      await q.enqueue('p2', { dedupId: deb, dedupTtlMs: 60_000, dedupMode: 'debounce', delayMs: 50_000 });
      assert.ok(Number(await env.command('ZSCORE', q.keys.schedule, first.id)) - due1 >= 40_000, 'debounce moved the due time');
      assert.equal((await q.getJob(first.id))?.payload, 'p2');
      assert.ok(Number(await env.command('PTTL', q.keys.dedup(deb))) > 59_000);
      assert.equal(await count(env, 'ZCARD', q.keys.schedule), 1);
    },
  },
  {
    name: 'ts_lifo_timestamp',
    family: 'ts',
    contract: 'an immediate admission whose option pairs carry lifo=1 scores its pending entry -priority - 0.5 - n/2^30 with n = HINCRBY meta lifo_seq 1 (mod 2^29), so it is claimed before the jobs waiting at its priority, newest first, and after every higher priority; timestamp is written into the row as given',
    async run(env) {
      const q = await env.queue();
      const a = await q.enqueue('a');
      const b = await q.enqueue('b', { lifo: true, timestamp: 1234 });
      const c = await q.enqueue('c', { lifo: true });
      const hi = await q.enqueue('hi', { priority: 1 });
      assert.equal(await env.command('HGET', q.keys.meta, 'lifo_seq'), '2');
      assert.equal(Number(await env.command('ZSCORE', q.keys.pending, b.id)), -0.5 - 1 / 2 ** 30);
      assert.equal((await hgetall(env, q.keys.job(b.id))).timestamp, '1234');
      assert.deepEqual(await zrange(env, q.keys.pending), [hi.id, c.id, b.id, a.id]);
    },
  },
  {
    name: 'ts_stalled_failed',
    family: 'ts',
    contract: 'when sweep_stalled dead-letters a job it publishes (and journals) stalled {outcome: dead} and then failed {outcome: dead, error: stalled} for it, in the same step',
    async run(env) {
      const q = await env.queue();
      await q.setEvents({ journal: 100 });
      const { id } = await q.enqueue('s');
      present(await q.leases().claim(1), 'the job');
      await until(async () => (await q.maintenance().sweepStalled({ maxStalled: 1 })).dead.length === 1, 'the sweep killed it');
      const records = parseStreamEntries(await env.command('XRANGE', q.keys.journal, '-', '+')).map(({ fields }) => entryFields(fields));
      assert.deepEqual(
        records.filter((r) => r.job === id),
        [
          { event: 'stalled', job: id, outcome: 'dead' },
          { event: 'failed', job: id, outcome: 'dead', error: 'stalled' },
        ],
      );
    },
  },
  {
    name: 'ts_continue_parent',
    family: 'ts',
    contract: 'a flow child with parent_policy cp that dies (retry at the cap) records its error in the parent :unsuccessful, counts the parent :dependencies down and moves a parent still in awaiting_children to pending at once, its other children open; a sibling completing after the parent row is gone writes nothing under it',
    async run(env) {
      const q = await env.queue();
      const flow = await q.addFlow({ parent: { payload: 'p' }, children: [{ payload: 'a', continueParentOnFailure: true }, { payload: 'b' }] });
      const [a, b] = flow.children;
      if (a === undefined || b === undefined) throw new Error('two children');
      assert.equal((await hgetall(env, q.keys.job(a.id))).parent_policy, 'cp');
      const held = [];
      for (;;) {
        const job = present(await q.leases().claim(30_000), 'a child');
        if (job.id === a.id) {
          assert.equal(await q.leases().retry(job, 0, 1, 'boom'), 'dead');
          break;
        }
        held.push(job);
      }
      assert.equal((await hgetall(env, q.keys.job(flow.id))).state, 'pending');
      assert.deepEqual(await hgetall(env, q.keys.jobSub(flow.id, 'unsuccessful')), { [a.id]: 'boom' });
      assert.equal(await env.command('GET', q.keys.jobSub(flow.id, 'dependencies')), '1');
      for (;;) {
        const job = await q.leases().claim(30_000);
        if (job === undefined) break;
        held.push(job);
      }
      // The parent runs and ends (its row and sub-keys deleted) while its other child still runs.
      await q.leases().complete(present(held.find((j) => j.id === flow.id), 'the parent'), 'partial');
      assert.equal(await count(env, 'EXISTS', q.keys.job(flow.id)), 0);
      const sibling = present(held.find((j) => j.id === b.id), 'the sibling');
      await q.leases().complete(sibling, 'late');
      assert.equal(await count(env, 'EXISTS', q.keys.jobSub(flow.id, 'processed'), q.keys.jobSub(flow.id, 'dependencies')), 0);
    },
  },
];
