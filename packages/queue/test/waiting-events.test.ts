import type { LifecycleEvent } from '@echo/protocol';
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

/** The three paths back to pending this file covers; each answers the id that went back. */
const PATHS: Record<string, (q: Queue<string>) => Promise<string>> = {
  'a flow parent released by its last child': async (q) => {
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child' }] });
    const child = await q.claim(60_000);
    if (child === undefined) throw new Error('nothing claimed');
    await q.complete(child);
    return flow.id;
  },
  'a job whose lease expired, reaped': async (q) => {
    const { id } = await q.enqueue('held');
    await q.claim(1);
    await until(async () => (await q.reap()) === 1, 'the expired lease reaped');
    return id;
  },
  'a dead job reprocessed': async (q) => {
    const { id } = await q.enqueue('doomed');
    const held = await q.claim(60_000);
    if (held === undefined) throw new Error('nothing claimed');
    await q.retry(held, 0, 1, 'dead at once');
    await q.reprocess(id);
    return id;
  },
};

describe('the chatty waiting event on the paths back to pending', () => {
  for (const [path, run] of Object.entries(PATHS)) {
    it(`is published once for ${path}`, async () => {
      const q = await open();
      await q.setEvents({ chatty: true });
      const events = await q.events();
      const seen = record(events);
      const before = seen.length;
      const id = await run(q);
      await settle(q, events, id);
      // Admission publishes one `waiting` for a plain job; only the return to pending adds another.
      const admitted = path.startsWith('a flow') ? 0 : 1;
      const waiting = seen.slice(before).filter((e) => e.event === 'waiting' && e.job === id);
      expect(waiting).toHaveLength(admitted + 1);
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
