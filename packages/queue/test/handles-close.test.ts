/**
 * One vocabulary: every handle closes with `close()` and answers `closed`; a job's verdict is awaited
 * one way (`queue.waitUntilFinished`), the listener's old `waitFor` refused with a typed error that
 * names it.
 */
import { Connection, RenamedError } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, Queue, Worker } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

const quiet = { maintenanceMs: 50, blockMs: 50, onError: (): void => undefined };

describe('handles', () => {
  it('queue, events listener, journal, worker and batch worker: closed goes true on close()', async () => {
    const q = await Queue.open<string>(uniqueName('close'), { connection: conn });
    const events = await q.events();
    const journal = q.journal({ blockMs: 50 });
    const worker = await Worker.start(q, () => undefined, quiet);
    const batch = await BatchWorker.start(q, () => 'ok', quiet);
    const handles = [worker, batch, journal, events, q];
    expect(handles.map((h) => h.closed)).toEqual([false, false, false, false, false]);
    for (const h of handles) await h.close();
    expect(handles.map((h) => h.closed)).toEqual([true, true, true, true, true]);
  });
});

describe('one way to wait for a verdict', () => {
  it('refuses QueueEvents.waitFor with a RenamedError naming queue.waitUntilFinished, which answers instead', async () => {
    const q = await Queue.open<string>(uniqueName('close'), { connection: conn });
    const events = await q.events();
    try {
      const { id } = await q.enqueue('go');
      let refused: unknown;
      try {
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- the refused name is what this test calls
        events.waitFor(id, 1000);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(RenamedError);
      expect((refused as RenamedError).message).toMatch(/QueueEvents\.waitFor\(\).*call queue\.waitUntilFinished\(id, \{ events \}\)/);
      expect(refused).toMatchObject({ code: 'renamed', called: 'QueueEvents.waitFor()', use: 'queue.waitUntilFinished(id, { events })' });
      const finished = q.waitUntilFinished(id, { timeoutMs: 10_000, events });
      const worker = await Worker.start(q, () => 'done', quiet);
      await expect(finished).resolves.toEqual({ id, result: 'done' });
      await worker.close();
    } finally {
      await events.close();
      await q.close();
    }
  });
});
