/** A. The state machine, scenarios 15–17: schedule, repeat and backoff, the jobs that wait for a time. */
import assert from 'node:assert/strict';
import { parseId } from '@echo/protocol';
import { exponential } from '@echo/queue';
import type { Scenario } from '../scenario.js';
import { byteOrder, hgetall, present, setsHolding, sleep, until, zrange, zscore } from '../support.js';

export const stateTimers: Scenario[] = [
  {
    no: 15,
    name: 'schedule',
    family: 'state',
    contract: 'enqueueIn(30 ms) sets state=scheduled and a claim is empty; after 50 ms promote moves 1 and the claim returns it with token 1',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('later', { delayMs: 30 });
      assert.deepEqual(await hgetall(env, q.keys.job(id)), { state: 'scheduled', attempts: '0', payload: q.codec.encode('later') });
      assert.deepEqual(await setsHolding(env, q, id), ['schedule']);
      assert.equal(await q.leases().claim(30_000), undefined);
      await sleep(50);
      assert.equal(await q.maintenance().promote(), 1);
      const job = present(await q.leases().claim(30_000), 'the promoted job');
      assert.equal(job.id, id);
      assert.equal(job.payload, 'later');
      assert.equal(job.attempts, 1);
    },
  },
  {
    no: 16,
    name: 'repeat',
    family: 'state',
    contract: 'one registration every 10 ms fires two occurrences with different ids, the second sorting after the first',
    async run(env) {
      const q = await env.queue();
      assert.equal(await q.registerRepeat('every10', { everyMs: 10, template: { tick: true }, firstInMs: 0 }), 'registered');
      assert.equal(await q.maintenance().fireDueRepeats(), 1);
      const [first] = await zrange(env, q.keys.pending);
      await sleep(25);
      assert.equal(await q.maintenance().fireDueRepeats(), 1);
      const all = await zrange(env, q.keys.pending);
      assert.equal(all.length, 2);
      const one = present(first, 'the first occurrence');
      // Read off the wire: parsing brands it, and fails the scenario if it is not a JOB id.
      const two = parseId(present(all.find((id) => id !== one), 'the second occurrence'), 'JOB');
      assert.equal(byteOrder(two, one), 1, 'the second id sorts after the first');
      assert.equal(await env.command('HGET', q.keys.job(two), 'payload'), q.codec.encode({ tick: true }));
      assert.equal(await q.repeatCount(), 1);
    },
  },
  {
    no: 17,
    name: 'backoff',
    family: 'state',
    contract: 'poison drill with exponential(1, 10) and max 3: dies on exactly the 3rd attempt, last_error "boom 3", id in dead',
    async run(env) {
      const q = await env.queue();
      const attempts: number[] = [];
      const worker = await env.startWorker(
        q,
        (job) => {
          attempts.push(job.attempts);
          throw new Error(`boom ${job.attempts}`);
        },
        { maxAttempts: 3, backoff: exponential(1, 10), maintenanceMs: 20, blockMs: 50 },
      );
      const { id } = await q.enqueue('poison');
      await until(async () => (await q.getState(id)) === 'dead', 'the poison job to die');
      await worker.close();
      assert.deepEqual(attempts, [1, 2, 3]);
      const row = await hgetall(env, q.keys.job(id));
      assert.deepEqual([row.state, row.attempts, row.last_error], ['dead', '3', 'boom 3']);
      assert.equal(await zscore(env, q.keys.dead, id), 0);
    },
  },
];
