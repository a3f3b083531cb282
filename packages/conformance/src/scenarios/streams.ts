/** L. Streams, scenarios 74–79 (bus.md). */
import assert from 'node:assert/strict';
import type { Stream, StreamEntry } from '@echo/bus';
import { xaddId } from '@echo/bus/wire';
import { entryFields, IdMinter, idUnixMs, KindError, MalformedIdError, NonMonotonicError, parseAutoclaim, parseOneStreamRead, parseStreamEntries, type StreamEntryReply } from '@echo/protocol/extend';
import type { Scenario, ScenarioEnv } from '../scenario.js';
import { assertError, byteOrder, count, present, rejection, until } from '../support.js';

/** The branded id an entry carries in its `id` field. */
function brandedId(entry: StreamEntryReply): string | undefined {
  return entryFields(entry.fields).id;
}

/** Appends one record minted at each instant (several per millisecond where instants repeat). */
async function mintedAt(env: ScenarioEnv, stream: Stream, instants: readonly number[]): Promise<string[]> {
  const clock = [...instants];
  const minter = new IdMinter({ node: 1023, now: () => clock.shift() ?? Number.NaN });
  const ids: string[] = [];
  for (const at of instants) ids.push(await stream.appendId(minter.mint('EVT'), { at: String(at) }));
  return ids;
}

const ids = (entries: readonly StreamEntry[]): string[] => entries.map(([id]) => id);

async function streamVerbs(env: ScenarioEnv): Promise<void> {
  const key = (await env.bus()).stream('verbs').key;
  const own = await env.subscriber();
  const pushes: string[] = [];
  const channel = `${env.name()}.push`;
  await own.subscribe([channel], { onMessage: ({ payload }) => pushes.push(payload) });

  const first = env.mintId('EVT');
  const xid1 = String(await own.command('XADD', key, '*', 'id', first, 'k', 'v1'));
  assert.match(xid1, /^\d+-\d+$/, 'XADD * answers a server id');
  await env.command('PUBLISH', channel, 'during-verbs');
  assert.deepEqual(await own.command('XRANGE', key, '-', '+'), [[xid1, ['id', first, 'k', 'v1']]]);

  await own.command('XGROUP', 'CREATE', key, 'g', '0');
  const second = env.mintId('EVT');
  const xid2 = String(await own.command('XADD', key, '*', 'id', second, 'k', 'v2'));
  const read = parseOneStreamRead(await own.command('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '10', 'STREAMS', key, '>'), key, 'XREADGROUP');
  assert.deepEqual(read, [
    { id: xid1, fields: ['id', first, 'k', 'v1'] },
    { id: xid2, fields: ['id', second, 'k', 'v2'] },
  ]);
  assert.equal(Number(await own.command('XACK', key, 'g', xid1, '0-1')), 1);
  const claimed = parseAutoclaim(await own.command('XAUTOCLAIM', key, 'g', 'c2', '0', '0', 'COUNT', '10'));
  assert.deepEqual(claimed.entries, [{ id: xid2, fields: ['id', second, 'k', 'v2'] }]);
  const pending = (await own.command('XPENDING', key, 'g', '-', '+', '10')) as unknown[][];
  assert.deepEqual(
    pending.map((p) => [p[0], p[1], Number(p[3])]),
    [[xid2, 'c2', 2]],
  );

  const batch = await own.pipeline(Array.from({ length: 5 }, (_, i) => ['XADD', key, '*', 'id', env.mintId('EVT'), 'n', String(i)] as const));
  const xids = batch.map((r) => (r.ok ? String(r.value) : `failed: ${r.error.message}`));
  const tail = parseStreamEntries(await own.command('XRANGE', key, `(${xid2}`, '+')).map(({ id, fields }) => [id, fields?.[3]]);
  assert.deepEqual(
    tail,
    xids.map((xid, i) => [xid, String(i)]),
  );
  await until(() => pushes.includes('during-verbs'), 'the push published while the verbs ran');
}

const T0 = Date.parse('2026-02-03T04:05:06.007Z');
const T1 = T0 + 250;
// Below, at the edges (several records in one millisecond), inside, and above the window.
const INSTANTS = [T0 - 1000, T0 - 1, T0 - 1, T0, T0, T0, T0 + 1, T0 + 100, T1 - 1, T1, T1, T1, T1 + 1, T1 + 1, T1 + 1000];
const DT = Date.parse('2031-05-06T07:08:09.010Z');

export const streams: Scenario[] = [
  {
    no: 74,
    name: 'stream_verbs',
    family: 'streams',
    contract: 'XADD, XRANGE, XREADGROUP without BLOCK, XACK and XAUTOCLAIM each check out against the data; pipelined XADDs answer in call order; a RESP3 push during them is delivered',
    run: streamVerbs,
  },
  {
    no: 75,
    name: 'stream_append',
    family: 'streams',
    contract: 'appended records read back in mint order under the XADD ids of bus.md §3; a wrong-kind id is refused before any I/O, no key after; an out-of-order append gives NonMonotonicError',
    async run(env) {
      const bus = await env.bus();
      const stream = bus.stream('log');
      const receipts = [await stream.append({ n: '0' }), await stream.append({ n: '1' }), await stream.append({ n: '2', extra: 'x' })];
      assert.deepEqual([...receipts].sort(byteOrder), receipts, 'receipts are in mint order');
      assert.deepEqual(
        [...(await stream.read())],
        [
          [receipts[0], { n: '0' }],
          [receipts[1], { n: '1' }],
          [receipts[2], { n: '2', extra: 'x' }],
        ],
      );
      const raw = parseStreamEntries(await env.command('XRANGE', stream.key, '-', '+'));
      assert.deepEqual(
        raw.map(({ id }) => id),
        receipts.map((id) => xaddId(id)),
      );

      const kinds = bus.stream('kinds');
      const before = env.stats().commands;
      assertError(await rejection(kinds.appendId(env.mintId('ORD'), { a: '1' })), KindError);
      assertError(await rejection(kinds.appendId('not-branded', { a: '1' })), MalformedIdError);
      assert.equal(env.stats().commands, before, 'refused before any wire I/O');
      assert.equal(await count(env, 'EXISTS', kinds.key), 0);

      const order = bus.stream('order');
      const [early, late] = [env.mintId('EVT'), env.mintId('EVT')];
      assert.equal(await order.appendId(late, { which: 'late' }), late);
      assertError(await rejection(order.appendId(early, { which: 'early' })), NonMonotonicError);
      assert.deepEqual([...(await order.read())], [[late, { which: 'late' }]]);
    },
  },
  {
    no: 76,
    name: 'stream_group',
    family: 'streams',
    contract: 'of two records read by a group, one acked and one not, a forced XAUTOCLAIM with min-idle 0 returns the same un-acked branded id and not the acked one',
    async run(env) {
      const stream = (await env.bus()).stream('log');
      const [a, b] = await stream.appendBatch([{ n: 'a' }, { n: 'b' }]);
      assert.equal(await stream.openGroup('g', 'head'), 'created');
      const read = parseOneStreamRead(await env.command('XREADGROUP', 'GROUP', 'g', 'reader', 'COUNT', '10', 'STREAMS', stream.key, '>'), stream.key, 'XREADGROUP');
      assert.deepEqual(read.map(brandedId), [a, b]);
      assert.equal(Number(await env.command('XACK', stream.key, 'g', present(read[0], 'the first entry').id)), 1);
      const claimed = parseAutoclaim(await env.command('XAUTOCLAIM', stream.key, 'g', 'thief', '0', '0', 'COUNT', '10'));
      assert.deepEqual(claimed.entries.map(brandedId), [b]);
    },
  },
  {
    no: 77,
    name: 'stream_retention',
    family: 'streams',
    contract: 'MAXLEN and MINID (exact =) keep the window, remove what is below it and count it exactly; an entry at dt-1ms is trimmed and one at dt survives',
    async run(env) {
      const bus = await env.bus();
      const byLength = bus.stream('maxlen');
      const appended = await byLength.appendBatch(Array.from({ length: 10 }, (_, i) => ({ i: String(i) })));
      assert.equal(await byLength.trim({ maxlen: 4, approx: false }), 6);
      assert.deepEqual(ids(await byLength.read()), appended.slice(6));
      assert.equal(await byLength.trim({ maxlen: 4, approx: false }), 0);

      const byId = bus.stream('minid');
      const minted = await mintedAt(env, byId, [DT - 5, DT - 1, DT - 1, DT, DT, DT + 1]);
      assert.equal(await byId.trim({ minid: DT, approx: false }), 3);
      const kept = ids(await byId.read());
      assert.deepEqual(kept, minted.slice(3));
      assert.deepEqual(
        kept.map((id) => idUnixMs(id)),
        [DT, DT, DT + 1],
      );
      assert.equal(await byId.trim({ minid: DT, approx: false }), 0);
    },
  },
  {
    no: 78,
    name: 'stream_archived',
    family: 'streams',
    contract: 'with no watermark the read is empty; a put reads back the exact W and a second put overwrites it; clear deletes it and the read is empty again',
    async run(env) {
      const stream = (await env.bus()).stream('log');
      const key = `${stream.key}:archived`;
      assert.equal(await stream.getArchived(), undefined);
      const w1 = env.mintId('EVT');
      await stream.putArchived(w1);
      assert.equal(await stream.getArchived(), w1);
      assert.equal(await env.command('GET', key), w1);
      const w2 = env.mintId('EVT');
      await stream.putArchived(w2);
      assert.equal(await stream.getArchived(), w2);
      assert.equal(await stream.clearArchived(), true);
      assert.equal(await stream.getArchived(), undefined);
      assert.equal(await count(env, 'EXISTS', key), 0);
    },
  },
  {
    no: 79,
    name: 'stream_time_travel',
    family: 'streams',
    contract: 'readWindow over records minted below, inside and above [t0, t1] equals the full read filtered by mint instant, inclusive at both ends to the ms; readSince(t0) agrees with the full read from t0',
    async run(env) {
      const stream = (await env.bus()).stream('log');
      const all = await mintedAt(env, stream, INSTANTS);
      const at = (id: string): number => idUnixMs(id);
      const full = await stream.read();
      assert.deepEqual(ids(full), all);
      const window = await stream.readWindow(T0, T1);
      assert.deepEqual(
        [...window],
        full.filter(([id]) => at(id) >= T0 && at(id) <= T1),
      );
      const instants = window.map(([, f]) => Number(f.at));
      assert.ok(instants.includes(T0) && instants.includes(T1), 't0 and t1 are in');
      assert.ok(!instants.includes(T0 - 1) && !instants.includes(T1 + 1), 't0-1ms and t1+1ms are out');
      assert.equal(window.length, 9);
      assert.deepEqual(
        [...(await stream.readSince(T0))],
        full.filter(([id]) => at(id) >= T0),
      );
    },
  },
];
