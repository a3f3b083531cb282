import type { LifecycleEvent } from '@echo/protocol/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type QueueEvents } from '../src/index.js';
import { until } from './worker-harness.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

async function open(): Promise<Queue<string>> {
  return Queue.open<string>(`waiting-${String(++n)}-${String(process.pid)}`, { connect: { host: server.host, port: server.port, strictKeys: true } });
}

/** Every parsed event a listener sees, in arrival order. */
function record(events: QueueEvents): LifecycleEvent[] {
  const seen: LifecycleEvent[] = [];
  events.on('*', (event) => seen.push(event));
  return seen;
}

/**
 * Publishes a progress marker for `id` and waits for it: messages on one channel arrive in publish
 * order, so whatever the earlier steps published has arrived by then.
 */
async function settle(q: Queue<string>, events: QueueEvents, id: string): Promise<void> {
  const marker = events.next((e) => e.event === 'progress' && e.job === id);
  await q.updateProgress(id, 1);
  await marker;
}

/** A way into pending: `run` answers the id that went there, `times` how many `waiting` it earns. */
interface Path {
  readonly run: (q: Queue<string>) => Promise<string>;
  /** Admission publishes one for a plain job; the path under test adds one more. */
  readonly times: number;
}

const PATHS: Record<string, Path> = {
  'a flow parent released by its last child': {
    times: 1,
    run: async (q) => {
      const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child' }] });
      const child = await q.leases().claim(60_000);
      if (child === undefined) throw new Error('nothing claimed');
      await q.leases().complete(child);
      return flow.id;
    },
  },
  'a flow parent released by a child in another queue': {
    times: 1,
    run: async (q) => {
      const kids = await Queue.open<string>(`${q.name}-kids`, { connection: q.connection });
      const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child', queue: kids.name }] });
      const child = await kids.leases().claim(60_000);
      if (child === undefined) throw new Error('nothing claimed');
      await kids.leases().complete(child);
      expect((await kids.maintenance().deliverOutbox()).delivered).toBe(1);
      return flow.id;
    },
  },
  'a same-queue leaf landed by addFlow': {
    times: 1,
    run: async (q) => (await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child' }] })).children[0]?.id ?? '',
  },
  'a same-queue leaf landed by addChildren': {
    // The step parent's own admission is not this id's: only the leaf's landing counts.
    times: 1,
    run: async (q) => {
      await q.enqueue('step');
      const held = await q.leases().claim(60_000);
      if (held === undefined) throw new Error('nothing claimed');
      const [leaf] = await q.leases().addChildren(held, [{ payload: 'leaf' }]);
      return leaf?.id ?? '';
    },
  },
  'a job whose lease expired, reaped': {
    times: 2,
    run: async (q) => {
      const { id } = await q.enqueue('held');
      await q.leases().claim(1);
      await until(async () => (await q.maintenance().reap()) === 1, 'the expired lease reaped');
      return id;
    },
  },
  'a dead job reprocessed': {
    times: 2,
    run: async (q) => {
      const { id } = await q.enqueue('doomed');
      const held = await q.leases().claim(60_000);
      if (held === undefined) throw new Error('nothing claimed');
      await q.leases().retry(held, 0, 1, 'dead at once');
      await q.reprocess(id);
      return id;
    },
  },
};

describe('the chatty waiting event on the paths back to pending', () => {
  for (const [path, { run, times }] of Object.entries(PATHS)) {
    it(`is published for ${path}, as often as it lands there`, async () => {
      const q = await open();
      await q.setEvents({ chatty: true });
      const events = await q.events();
      const seen = record(events);
      const id = await run(q);
      await settle(q, events, id);
      expect(seen.filter((e) => e.event === 'waiting' && e.job === id)).toHaveLength(times);
      await events.close();
      await q.close();
    });

    it(`is not published for ${path} while the chatty events are off`, async () => {
      const q = await open();
      const events = await q.events();
      const seen = record(events);
      const id = await run(q);
      await settle(q, events, id);
      expect(seen.filter((e) => e.event === 'waiting')).toEqual([]);
      await events.close();
      await q.close();
    });
  }
});
