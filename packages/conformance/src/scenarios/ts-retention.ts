/** TS-only extensions for finished jobs: retention, idempotency keys released with their job, business keys. */
import assert from 'node:assert/strict';
import type { JobId } from '@echo/protocol';
import type { Scenario } from '../scenario.js';
import { count, hgetall, present, zrange, zscore } from '../support.js';

export const tsRetention: Scenario[] = [
  {
    name: 'ts_retention',
    family: 'ts',
    contract: 'with meta keep_completed_count = 1 complete leaves the row as state=completed with finished_at and result, indexed in emq:{q}:completed by finish time, and trims the older one; keep_failed_count = 1 trims the dead set by emq:{q}:dead:at; with no policy complete deletes the row',
    async run(env) {
      const q = await env.queue();
      await q.setRetention({ completed: { count: 1 }, failed: { count: 1 } });
      assert.deepEqual(await env.command('HMGET', q.keys.meta, 'keep_completed_count', 'keep_failed_count'), ['1', '1']);
      const first = await q.enqueue('a');
      await q.leases().complete(present(await q.leases().claim(30_000), 'the first job'), 'r1');
      const second = await q.enqueue('b');
      await q.leases().complete(present(await q.leases().claim(30_000), 'the second job'), 'r2');
      const row = await hgetall(env, q.keys.job(second.id));
      assert.deepEqual([row.state, row.result], ['completed', 'r2']);
      assert.equal(await zscore(env, q.keys.completed, second.id), Number(row.finished_at));
      assert.deepEqual(await zrange(env, q.keys.completed), [second.id]);
      assert.equal(await count(env, 'EXISTS', q.keys.job(first.id)), 0);
      const dead: JobId[] = [];
      for (const payload of ['c', 'd']) {
        const { id } = await q.enqueue(payload);
        assert.equal(await q.leases().retry(present(await q.leases().claim(30_000), 'a job to kill'), 0, 1, 'boom'), 'dead');
        dead.push(id);
      }
      assert.deepEqual(await zrange(env, q.keys.dead), [dead[1]]);
      assert.deepEqual(await zrange(env, q.keys.deadAt), [dead[1]]);
      assert.ok(Number((await hgetall(env, q.keys.job(present(dead[1], 'the newest dead job')))).finished_at) > 0);
      const plain = await env.queue('plain');
      const gone = await plain.enqueue('x');
      await plain.leases().complete(present(await plain.leases().claim(30_000), 'a plain job'), 'r');
      assert.equal(await count(env, 'EXISTS', plain.keys.job(gone.id)), 0);
      assert.equal(await count(env, 'EXISTS', plain.keys.completed), 0);
    },
  },
  {
    name: 'ts_dedup_release',
    family: 'ts',
    contract: 'a keyed row names its key in the dedup field; complete, dead-lettering and remove delete de:<did> when it has no TTL and still names the job, in the same script; a key with a TTL is left to expire',
    async run(env) {
      const q = await env.queue();
      const did = (tag: string): string => `${tag}${env.mintId('JOB')}`;
      const done = did('c');
      const a = await q.enqueue('a', { dedupId: done });
      assert.equal((await hgetall(env, q.keys.job(a.id))).dedup, done);
      await q.leases().complete(present(await q.leases().claim(30_000), 'the job'));
      assert.equal(await count(env, 'EXISTS', q.keys.dedup(done)), 0);
      const dies = did('d');
      await q.enqueue('b', { dedupId: dies });
      assert.equal(await q.leases().retry(present(await q.leases().claim(30_000), 'the job'), 0, 1, 'boom'), 'dead');
      assert.equal(await count(env, 'EXISTS', q.keys.dedup(dies)), 0);
      const removed = did('r');
      const c = await q.enqueue('c', { dedupId: removed });
      await q.remove(c.id);
      assert.equal(await count(env, 'EXISTS', q.keys.dedup(removed)), 0);
      const ttl = did('t');
      const d = await q.enqueue('d', { dedupId: ttl, dedupTtlMs: 60_000 });
      await q.leases().complete(present(await q.leases().claim(30_000), 'the job'));
      assert.equal(await env.command('GET', q.keys.dedup(ttl)), d.id);
    },
  },
  {
    name: 'ts_business_key',
    family: 'ts',
    contract: 'enqueue with a business key parks de:<key> without a TTL and writes dedup and dedup_keep into the row; a second admission under it (delayed or not) reports the first id; complete leaves the key with a PTTL of at most dedup_keep',
    async run(env) {
      const q = await env.queue();
      const key = `order-${env.mintId('JOB')}`;
      const first = await q.enqueue('a', { key, keyRetentionMs: 60_000 });
      const row = await hgetall(env, q.keys.job(first.id));
      assert.deepEqual([row.dedup, row.dedup_keep], [key, '60000']);
      assert.equal(Number(await env.command('PTTL', q.keys.dedup(key))), -1);
      const again = await q.enqueue('b', { key, delayMs: 5_000 });
      assert.deepEqual([again.status, again.status === 'duplicate' ? again.existingId : undefined], ['duplicate', first.id]);
      await q.leases().complete(present(await q.leases().claim(30_000), 'the job'));
      const pttl = Number(await env.command('PTTL', q.keys.dedup(key)));
      assert.ok(pttl > 0 && pttl <= 60_000, `PTTL ${String(pttl)}`);
      assert.equal((await q.enqueue('c', { key })).status, 'duplicate');
    },
  },
];
