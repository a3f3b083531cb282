/** [TS] The lifecycle events our scripts publish and the events journal, appended after ts-only. */
import assert from 'node:assert/strict';
import { entryFields, parseKey, parseStreamEntries, type JobId, type LifecycleEvent } from '@echo/protocol/extend';
import type { Scenario } from '../scenario.js';
import { present, until } from '../support.js';

/** The journal's entries as flat records, oldest first. */
async function journalRecords(command: (name: string, ...args: string[]) => Promise<unknown>, key: string): Promise<Readonly<Record<string, string>>[]> {
  return parseStreamEntries(await command('XRANGE', key, '-', '+')).map(({ fields }) => entryFields(fields));
}

export const tsEvents: Scenario[] = [
  {
    name: 'ts_lifecycle_events',
    family: 'ts',
    contract:
      'with meta events=all, enqueue publishes waiting, a claim active {attempt} then drained {job ""} when it emptied pending, a dedup hit deduplicated {dedup, refused} for the parked job, retry failed {outcome}; every message is a flat JSON object of strings',
    async run(env) {
      const q = await env.queue();
      await q.setEvents({ chatty: true });
      const events = await env.events(q);
      env.defer(() => events.close());
      const raw: string[] = [];
      const got: LifecycleEvent[] = [];
      events.on('raw', ({ payload }) => raw.push(payload));
      events.on('*', (e) => got.push(e));
      const did = `d${env.mintId('JOB')}`;
      const { id } = await q.enqueue('x', { dedupId: did });
      // Given, so the event's `refused` can be checked: the verdict names the kept job, not this id.
      const refused = env.mintId('JOB') as JobId;
      assert.deepEqual(await q.enqueue('y', { id: refused, dedupId: did }), { status: 'duplicate', id, existingId: id });
      const job = present(await q.leases().claim(30_000), 'the claimed job');
      assert.equal(await q.leases().retry(job, 60_000, 3, 'later', { publish: true }), 'scheduled');
      await until(() => got.length >= 5, 'five events');
      assert.deepEqual(
        got.map((e) => [e.event, e.job, e.fields]),
        [
          ['waiting', id, {}],
          ['deduplicated', id, { dedup: did, refused }],
          ['active', id, { attempt: '1' }],
          ['drained', '', {}],
          ['failed', id, { outcome: 'scheduled' }],
        ],
      );
      for (const message of raw) {
        const parsed = JSON.parse(message) as Record<string, unknown>;
        assert.ok(Object.values(parsed).every((v) => typeof v === 'string'), `every value a string: ${message}`);
      }
    },
  },
  {
    name: 'ts_events_journal',
    family: 'ts',
    contract:
      'with meta journal=N, every published event is also appended, in the same step, to emq:{q}:journal (a STREAM parsed as the fixed type journal) with the same flat fields, trimmed MAXLEN ~ N; turning it off keeps what it holds',
    async run(env) {
      const q = await env.queue();
      assert.deepEqual(parseKey(q.keys.journal), { kind: 'fixed', queue: q.name, type: 'journal' });
      await q.setEvents({ journal: 100 });
      const { id } = await q.enqueue('x');
      await q.updateProgress(id, 42);
      const job = present(await q.leases().claim(30_000), 'the claimed job');
      await q.leases().complete(job, undefined, { publish: true });
      await q.setEvents({ journal: null });
      await q.enqueue('after', { delayMs: 60_000 });
      const command = (name: string, ...args: string[]): Promise<unknown> => env.command(name, ...args);
      assert.deepEqual(await journalRecords(command, q.keys.journal), [
        { event: 'progress', job: id, progress: '42' },
        { event: 'completed', job: id },
      ]);
      assert.equal(await env.command('TYPE', q.keys.journal), 'stream');
    },
  },
  {
    name: 'ts_waiting_paths',
    family: 'ts',
    contract:
      'with meta events=all, waiting is published for every job entering pending, not only at admission: a flow leaf enqueue_flow lands, a parent its last child releases (complete), a lease reap recovers, a dead job reprocess brings back',
    async run(env) {
      const q = await env.queue();
      await q.setEvents({ chatty: true });
      const events = await env.events(q);
      env.defer(() => events.close());
      const waiting: string[] = [];
      events.on('waiting', (e) => waiting.push(e.job));
      const flow = await q.addFlow({ parent: { payload: 'p' }, children: [{ payload: 'c' }] });
      const leaf = present(flow.children[0], 'the leaf').id;
      await q.leases().complete(present(await q.leases().claim(30_000), 'the leaf claimed'));
      await q.leases().retry(present(await q.leases().claim(1), 'the parent claimed'), 0, 1, 'dead');
      await q.reprocess(flow.id);
      present(await q.leases().claim(1), 'the parent claimed again');
      await until(async () => (await q.maintenance().reap()) === 1, 'the lease reaped');
      await until(() => waiting.length >= 4, 'four waiting events');
      assert.deepEqual(waiting, [leaf, flow.id, flow.id, flow.id]);
    },
  },
];
