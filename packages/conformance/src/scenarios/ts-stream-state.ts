/**
 * TS-only extensions of the stream log (bus.md §2, §7): the publish dedup window, the per-key order
 * registry of ordered groups, the in-progress touch and the state a stream keeps beside the log.
 */
import assert from 'node:assert/strict';
import { xaddId } from '@echo/bus/wire';
import { parseOneStreamRead, transitions, type EvtId } from '@echo/protocol/extend';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { count } from '../support.js';

/** The XADD ids a group read hands `consumer`, `n` at most. */
async function readGroup(env: ScenarioEnv, key: string, consumer: string, n: number): Promise<string[]> {
  const reply = await env.command('XREADGROUP', 'GROUP', 'g', consumer, 'COUNT', String(n), 'STREAMS', key, '>');
  return parseOneStreamRead(reply, key, 'XREADGROUP').map(({ id }) => id);
}

export const tsStreamState: Scenario[] = [
  {
    name: 'ts_stream_dedup',
    family: 'ts',
    contract: 'stream_append writes a record whose message id is new, answers a second one within window_ms with the first EVT id and writes nothing, keeps the ids in stream:<name>:msgids (hash) and :msgids:until (zset by window end) with a TTL no longer than the window, and stream_drop deletes them',
    async run(env) {
      const bus = await env.bus();
      const stream = bus.stream('dedup');
      const first = env.mintId('EVT') as EvtId;
      const second = env.mintId('EVT') as EvtId;
      const base = { queue: stream.queue, stream: stream.name, windowMs: 60_000 };
      const landed = await env.execute(transitions.streamAppend({ ...base, records: [{ msgId: 'm', xid: xaddId(first), fields: ['id', first, 'n', '1'] }] }));
      assert.deepEqual(landed, [{ kind: 'appended' }]);
      const again = await env.execute(
        transitions.streamAppend({
          ...base,
          records: [
            { msgId: 'm', xid: xaddId(second), fields: ['id', second, 'n', '2'] },
            { msgId: 'k', xid: xaddId(second), fields: ['id', second, 'n', '3'] },
          ],
        }),
      );
      assert.deepEqual(again, [{ kind: 'duplicate', first }, { kind: 'appended' }]);
      assert.equal(await count(env, 'XLEN', stream.key), 2);
      const msgids = `${stream.key}:msgids`;
      assert.equal(await env.command('HGET', msgids, 'm'), first);
      const ttl = Number(await env.command('PTTL', `${msgids}:until`));
      assert.ok(ttl > 0 && ttl <= 60_000, `a TTL within the window, got ${ttl}`);
      assert.equal(await stream.drop(), true);
      assert.equal(await count(env, 'EXISTS', msgids, `${msgids}:until`), 0);
    },
  },
  {
    name: 'ts_stream_order',
    family: 'ts',
    contract: 'stream_order_admit registers entries of an ordered group in stream order from the group watermark up to last, whoever admits first, and answers per entry head (empty), the pending xid it waits for, or - when the consumer does not hold it; stream_settle acks and unregisters an entry given with its key, making the next entry of the key the head',
    async run(env) {
      const stream = (await env.bus()).stream('ordered');
      await stream.appendBatch([{ k: 'a' }, { k: 'a' }, { k: 'b' }]);
      await stream.openGroup('g', 'head');
      const scope = { queue: stream.queue, stream: stream.name, group: 'g', orderBy: 'k' };
      await env.execute(transitions.streamOrderAdmit({ ...scope, consumer: 'c1', last: '0-0', entries: [] }));
      const [x1] = await readGroup(env, stream.key, 'c1', 1);
      const [x2, x3] = await readGroup(env, stream.key, 'c2', 2);
      assert.ok(x1 !== undefined && x2 !== undefined && x3 !== undefined, 'three entries read');
      // c2 admits first; x1 (read by c1, not admitted yet) is registered by the gap and holds x2.
      const late = await env.execute(transitions.streamOrderAdmit({ ...scope, consumer: 'c2', last: x3, entries: [{ xid: x2, key: 'a' }, { xid: x3, key: 'b' }] }));
      assert.deepEqual(late, [{ kind: 'wait', after: x1 }, { kind: 'head' }]);
      assert.deepEqual(await env.execute(transitions.streamOrderAdmit({ ...scope, consumer: 'c1', last: x1, entries: [{ xid: x1, key: 'a' }] })), [{ kind: 'head' }]);
      assert.deepEqual(await env.execute(transitions.streamOrderAdmit({ ...scope, consumer: 'c1', entries: [{ xid: x2, key: 'a' }] })), [{ kind: 'gone' }]);
      const settle = { queue: stream.queue, stream: stream.name, group: 'g', consumer: 'c1', minIdleMs: 30_000, maxDeliveries: 0 };
      assert.deepEqual(await env.execute(transitions.streamSettle({ ...settle, entries: [{ kind: 'ack', xid: x1, attempts: 1, key: 'a' }] })), { acked: 1, deadLettered: 0, retried: 0 });
      assert.deepEqual(await env.execute(transitions.streamOrderAdmit({ ...scope, consumer: 'c2', entries: [{ xid: x2, key: 'a' }] })), [{ kind: 'head' }]);
      // The registry holds x2, x3 and the watermark; forgetting the group clears it.
      assert.equal(await count(env, 'ZCARD', `${stream.key}:order`), 3);
      await stream.pauseGroup('g');
      assert.equal(await stream.deleteGroup('g'), true);
      assert.equal(await count(env, 'EXISTS', `${stream.key}:order`, `${stream.key}:paused`), 0);
    },
  },
  {
    name: 'ts_stream_settle',
    family: 'ts',
    contract: 'stream_settle acks, leaves a retry pending with its last delivery re-dated by its delay and no delivery counted, moves a failure to stream:<name>:dead with its reason and attempts and acks it, and does the same to a retry on the last delivery max_deliveries allows',
    async run(env) {
      const stream = (await env.bus()).stream('settled');
      await stream.appendBatch([{ n: '1' }, { n: '2' }, { n: '3' }, { n: '4' }]);
      await stream.openGroup('g', 'head');
      const [x1, x2, x3, x4] = await readGroup(env, stream.key, 'c', 4);
      assert.ok(x1 !== undefined && x2 !== undefined && x3 !== undefined && x4 !== undefined, 'four entries read');
      const scope = { queue: stream.queue, stream: stream.name, group: 'g', consumer: 'c', minIdleMs: 60_000, maxDeliveries: 2 };
      const entries = [
        { kind: 'ack', xid: x1, attempts: 1 },
        { kind: 'retry', xid: x2, attempts: 1, delayMs: 0, reason: 'again' },
        { kind: 'dead', xid: x3, attempts: 1, reason: 'poison' },
        { kind: 'retry', xid: x4, attempts: 2, reason: 'last' },
      ] as const;
      assert.deepEqual(await env.execute(transitions.streamSettle({ ...scope, entries })), { acked: 1, deadLettered: 2, retried: 1 });
      // Only the plain retry is still pending: delivered once, dated the whole min-idle time ago.
      const pending = (await env.command('XPENDING', stream.key, 'g', '-', '+', '10')) as [string, string, number, number][];
      assert.deepEqual(pending.map(([xid, consumer, , deliveries]) => [xid, consumer, deliveries]), [[x2, 'c', 1]]);
      assert.ok((pending[0]?.[2] ?? 0) >= 60_000, 'the retry is claimable at once');
      const dead = await stream.deadLetters();
      assert.deepEqual(
        dead.map((d) => [d.xid, d.group, d.consumer, d.reason, d.attempts, d.payload]),
        [
          [x3, 'g', 'c', 'poison', 1, { n: '3' }],
          [x4, 'g', 'c', 'last', 2, { n: '4' }],
        ],
      );
    },
  },
  {
    name: 'ts_stream_touch',
    family: 'ts',
    contract: 'stream_touch resets the idle time of entries the consumer holds without counting a delivery, and leaves entries another consumer holds',
    async run(env) {
      const stream = (await env.bus()).stream('touch');
      await stream.appendBatch([{ n: '1' }, { n: '2' }]);
      await stream.openGroup('g', 'head');
      const [mine] = await readGroup(env, stream.key, 'c1', 1);
      const [theirs] = await readGroup(env, stream.key, 'c2', 1);
      assert.ok(mine !== undefined && theirs !== undefined, 'two entries read');
      // Both idle a while; mine, read first, is the idler one until it is touched.
      await new Promise((resolve) => setTimeout(resolve, 30));
      const scope = { queue: stream.queue, stream: stream.name, group: 'g', consumer: 'c1' };
      assert.equal(await env.execute(transitions.streamTouch({ ...scope, xids: [mine, theirs] })), 1);
      const rows = (await env.command('XPENDING', stream.key, 'g', '-', '+', '10')) as [string, string, number, number][];
      const idle = (xid: string): number => Number(rows.find(([x]) => x === xid)?.[2]);
      assert.ok(idle(mine) < idle(theirs), `the touched entry is the less idle one: ${idle(mine)} vs ${idle(theirs)}`);
      assert.deepEqual(
        rows.map(([xid, owner, , deliveries]) => [xid, owner, deliveries]),
        [
          [mine, 'c1', 1],
          [theirs, 'c2', 1],
        ],
      );
    },
  },
];
