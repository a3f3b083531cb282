/** A. The state machine, scenarios 12–18: lanes, schedule, repeat, backoff and the resubscribe drill. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Scenario, ScenarioEnv } from './scenario.js';
import { byteOrder, count, hgetall, present, setsHolding, sleep, until, zrange, zscore } from './support.js';
import type { LifecycleEventLike, NodeLike } from './types.js';

/**
 * The node and server-side id of the subscribed client connection whose name contains `name` (a
 * cluster client names its subscriber connection after the caller's name, among others).
 */
async function subscriberNamed(nodes: readonly NodeLike[], name: string): Promise<{ node: NodeLike; id: string } | undefined> {
  for (const node of nodes) {
    const list = String(await node.command('CLIENT', 'LIST'));
    for (const line of list.split('\n')) {
      const named = / name=(\S*)/.exec(line)?.[1];
      const id = /^id=(\d+)/.exec(line)?.[1];
      const subscriptions = Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0);
      if (named?.includes(name) && id !== undefined && subscriptions > 0) return { node, id };
    }
  }
  return undefined;
}

/** Subscribers of `channel` summed over every node (a cluster counts them per node). */
async function subscribers(nodes: readonly NodeLike[], channel: string): Promise<number> {
  let total = 0;
  for (const node of nodes) total += Number(((await node.command('PUBSUB', 'NUMSUB', channel)) as unknown[])[1]);
  return total;
}

async function resubscribe(env: ScenarioEnv): Promise<void> {
  const bus = await env.bus();
  const name = `conf-sub-${randomBytes(6).toString('hex')}`;
  const events = await bus.events({ connectionName: name });
  env.defer(() => events.close());
  const got: LifecycleEventLike[] = [];
  events.on((e) => got.push(e));
  const first = env.mintId('JOB');
  await bus.publish('progress', first, { progress: '10' });
  await until(() => got.length === 1, 'the first message');

  const nodes = await env.nodes();
  const killed = present(await subscriberNamed(nodes, name), `a subscribed client named ${name}`);
  await killed.node.command('CLIENT', 'KILL', 'ID', killed.id);
  // Back once a new connection under the name is subscribed and the channel has its subscriber again.
  await until(async () => {
    const now = await subscriberNamed(nodes, name);
    // Client ids count per node: a new subscriber on another node may well reuse the number.
    const fresh = now !== undefined && (now.node !== killed.node || now.id !== killed.id);
    return fresh && (await subscribers(nodes, bus.channel)) >= 1;
  }, 'the automatic reconnect and re-subscribe');

  const second = env.mintId('JOB');
  await bus.publish('completed', second);
  await until(() => got.length === 2, 'a message after the reconnect');
  assert.deepEqual(
    got.map((e) => [e.event, e.job]),
    [
      ['progress', first],
      ['completed', second],
    ],
  );
}

export const stateMachineMore: Scenario[] = [
  {
    no: 12,
    name: 'rotate',
    family: 'state',
    needs: ['openQueue'],
    contract: 'two lanes with two jobs each are served a, b, a, b, each with token 1',
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      await q.enqueueInLane(a, 'a1');
      await q.enqueueInLane(a, 'a2');
      await q.enqueueInLane(b, 'b1');
      await q.enqueueInLane(b, 'b2');
      const served = [];
      for (let i = 0; i < 4; i++) served.push(present(await q.laneClaim(30_000), `lane claim ${i + 1}`));
      assert.deepEqual(
        served.map((j) => j.group),
        [a, b, a, b],
      );
      assert.deepEqual(
        served.map((j) => j.payload),
        ['a1', 'b1', 'a2', 'b2'],
      );
      assert.deepEqual(
        served.map((j) => j.attempts),
        [1, 1, 1, 1],
      );
    },
  },
  {
    no: 13,
    name: 'pause',
    family: 'state',
    needs: ['openQueue'],
    contract: "pause lane a: b is served twice, then the claim is empty while a's depth is 2; after resume a is served",
    async run(env) {
      const q = await env.queue();
      const [a, b] = [env.mintId('PRT'), env.mintId('PRT')];
      for (const g of [a, a, b, b]) await q.enqueueInLane(g, g === a ? 'a' : 'b');
      await q.lanePause(a);
      assert.equal((await q.laneClaim(30_000))?.group, b);
      assert.equal((await q.laneClaim(30_000))?.group, b);
      assert.equal(await q.laneClaim(30_000), undefined);
      assert.deepEqual([...(await q.laneDepths([a]))], [2]);
      assert.equal(await count(env, 'ZCARD', q.keys.lane(a)), 2);
      await q.laneResume(a);
      const resumed = present(await q.laneClaim(30_000), 'a claim after resume');
      assert.equal(resumed.group, a);
      assert.equal(resumed.attempts, 1);
    },
  },
  {
    no: 14,
    name: 'limit',
    family: 'state',
    needs: ['openQueue'],
    contract: 'with lane limit 1 a second claim is empty while the first job is in flight; after it completes the next is served',
    async run(env) {
      const q = await env.queue();
      const g = env.mintId('PRT');
      await q.enqueueInLane(g, 'one');
      await q.enqueueInLane(g, 'two');
      await q.laneLimit(g, 1);
      const first = present(await q.laneClaim(30_000), 'the first lane claim');
      assert.equal(first.payload, 'one');
      assert.equal(await q.laneClaim(30_000), undefined);
      assert.equal(await env.command('HGET', q.keys.gactive, g), '1');
      await q.complete(first);
      const second = present(await q.laneClaim(30_000), 'the claim after complete');
      assert.equal(second.payload, 'two');
      assert.equal(second.attempts, 1);
    },
  },
  {
    no: 15,
    name: 'schedule',
    family: 'state',
    needs: ['openQueue'],
    contract: 'enqueueIn(30 ms) sets state=scheduled and a claim is empty; after 50 ms promote moves 1 and the claim returns it with token 1',
    async run(env) {
      const q = await env.queue();
      const { id } = await q.enqueue('later', { delayMs: 30 });
      assert.deepEqual(await hgetall(env, q.keys.job(id)), { state: 'scheduled', attempts: '0', payload: q.codec.encode('later') });
      assert.deepEqual(await setsHolding(env, q, id), ['schedule']);
      assert.equal(await q.claim(30_000), undefined);
      await sleep(50);
      assert.equal(await q.promote(), 1);
      const job = present(await q.claim(30_000), 'the promoted job');
      assert.equal(job.id, id);
      assert.equal(job.payload, 'later');
      assert.equal(job.attempts, 1);
    },
  },
  {
    no: 16,
    name: 'repeat',
    family: 'state',
    needs: ['openQueue'],
    contract: 'one registration every 10 ms fires two occurrences with different ids, the second sorting after the first',
    async run(env) {
      const q = await env.queue();
      assert.equal(await q.registerRepeat('every10', { everyMs: 10, template: { tick: true }, firstInMs: 0 }), 'registered');
      assert.equal(await q.fireDueRepeats(), 1);
      const [first] = await zrange(env, q.keys.pending);
      await sleep(25);
      assert.equal(await q.fireDueRepeats(), 1);
      const all = await zrange(env, q.keys.pending);
      assert.equal(all.length, 2);
      const one = present(first, 'the first occurrence');
      const two = present(
        all.find((id) => id !== one),
        'the second occurrence',
      );
      assert.equal(byteOrder(two, one), 1, 'the second id sorts after the first');
      assert.equal(await env.command('HGET', q.keys.job(two), 'payload'), q.codec.encode({ tick: true }));
      assert.equal(await q.repeatCount(), 1);
    },
  },
  {
    no: 17,
    name: 'backoff',
    family: 'state',
    needs: ['openQueue', 'startWorker'],
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
        { maxAttempts: 3, backoff: { type: 'exponential', base: 1, cap: 10 }, maintenanceMs: 20, blockMs: 50 },
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
  {
    no: 18,
    name: 'resubscribe',
    family: 'state',
    needs: ['openBus', 'nodes'],
    contract: 'a RESP3 subscriber whose socket is killed still receives messages on the same channel after the automatic reconnect',
    run: resubscribe,
  },
];
