import { Connection, hooks, onHook, TELEMETRY_HOOK_NAMES, type TelemetryHookMap, type TelemetryHookName } from '@echo/protocol/queue';
import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchWorker, fixed, Queue, Worker } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

/** Every job hook heard for one queue, as [hook, payload]. */
type Heard = [TelemetryHookName, TelemetryHookMap[TelemetryHookName]][];
const offs: (() => void)[] = [];
afterEach(() => {
  for (const off of offs.splice(0)) off();
});

function listen(queue: string): Heard {
  const heard: Heard = [];
  for (const name of TELEMETRY_HOOK_NAMES.filter((n) => n.startsWith('emq.job.'))) {
    offs.push(onHook(name, (e) => {
      if ('queue' in e && e.queue === queue) heard.push([name, e]);
    }));
  }
  return heard;
}

const names = (heard: Heard): string[] => heard.map(([name]) => name);

describe('emq.job.* hooks', () => {
  it('fire enqueue, start and complete with the job id, attempt and a duration', async () => {
    const queue = await Queue.open<string>(uniqueName('tel'), { connection: conn });
    const heard = listen(queue.name);
    const { id } = await queue.enqueue('a');
    const worker = await Worker.start(queue, () => 'done', { blockMs: 50 });
    await waitFor(() => heard.length === 3, { what: 'three hooks' });
    await worker.close();
    expect(names(heard)).toEqual(['emq.job.enqueue', 'emq.job.start', 'emq.job.complete']);
    expect(heard[0]?.[1]).toMatchObject({ queue: queue.name, jobIds: [id], count: 1, delayed: false });
    expect(heard[1]?.[1]).toEqual({ queue: queue.name, jobId: id, attempt: 1, group: undefined });
    expect(heard[2]?.[1]).toMatchObject({ queue: queue.name, jobId: id, attempt: 1 });
    const done = heard[2]?.[1] as TelemetryHookMap['emq.job.complete'];
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('fire fail with retry, then fail with dead, carrying the error and the attempt', async () => {
    const queue = await Queue.open<string>(uniqueName('tel-fail'), { connection: conn });
    const heard = listen(queue.name);
    const { id } = await queue.enqueue('boom');
    const worker = await Worker.start(queue, () => {
      throw new Error('card declined');
    }, { blockMs: 50, maxAttempts: 2, backoff: fixed(1), maintenanceMs: 50 });
    await waitFor(() => heard.some(([n]) => n === 'emq.job.dead'), { what: 'the dead hook', timeoutMs: 15_000 });
    await worker.close();
    const verdicts = heard.filter(([n]) => n !== 'emq.job.start' && n !== 'emq.job.enqueue');
    expect(verdicts.map(([n, e]) => [n, (e as TelemetryHookMap['emq.job.fail']).attempt, (e as TelemetryHookMap['emq.job.fail']).outcome])).toEqual([
      ['emq.job.fail', 1, 'retry'],
      ['emq.job.retry', 1, 'retry'],
      ['emq.job.fail', 2, 'dead'],
      ['emq.job.dead', 2, 'dead'],
    ]);
    expect(verdicts.every(([, e]) => (e as TelemetryHookMap['emq.job.fail']).error === 'card declined' && 'jobId' in e && e.jobId === id)).toBe(true);
  });

  it('fire per member of a batch, and for a batch admission once with every id', async () => {
    const queue = await Queue.open<number>(uniqueName('tel-batch'), { connection: conn });
    const heard = listen(queue.name);
    const admitted = await queue.enqueueMany([1, 2, 3].map((payload) => ({ payload })));
    const worker = await BatchWorker.start(queue, (jobs) => new Map(jobs.map((j) => [j.id, j.payload === 2 ? { error: 'two' } : 'ok'] as const)), { size: 3, blockMs: 50, maxAttempts: 1 });
    await waitFor(() => heard.filter(([n]) => n === 'emq.job.complete' || n === 'emq.job.dead').length === 3, { what: 'three verdicts' });
    await worker.close();
    expect(heard.filter(([n]) => n === 'emq.job.enqueue').map(([, e]) => (e as TelemetryHookMap['emq.job.enqueue']).jobIds)).toEqual([admitted.map((a) => a.id)]);
    expect(heard.filter(([n]) => n === 'emq.job.start')).toHaveLength(3);
    expect(heard.filter(([n]) => n === 'emq.job.complete')).toHaveLength(2);
    expect(heard.filter(([n]) => n === 'emq.job.dead').map(([, e]) => (e as TelemetryHookMap['emq.job.dead']).error)).toEqual(['two']);
  });

  it('fire stalled when the pump recovers a lapsed lease, then complete on the next attempt', async () => {
    const queue = await Queue.open<string>(uniqueName('tel-stall'), { connection: conn });
    const heard = listen(queue.name);
    const { id } = await queue.enqueue('s');
    // A lease of 30 ms that nobody settles: the worker's sweeps (every 20 ms) find it once it lapses.
    await queue.leases().claim(30);
    const worker = await Worker.start(queue, () => undefined, { blockMs: 50, maintenanceMs: 20, stalled: { maxStalled: 2 } });
    await waitFor(() => heard.some(([n]) => n === 'emq.job.complete'), { what: 'the completion', timeoutMs: 10_000 });
    await worker.close();
    expect(heard.find(([n]) => n === 'emq.job.stalled')?.[1]).toEqual({ queue: queue.name, jobId: id, outcome: 'recovered' });
    expect(heard.find(([n]) => n === 'emq.job.complete')?.[1]).toMatchObject({ jobId: id, attempt: 2 });
  });

  it('have no subscriber once every listener is gone: a worker then builds no payload', async () => {
    const queue = await Queue.open<string>(uniqueName('tel-off'), { connection: conn });
    for (const off of offs.splice(0)) off();
    expect(Object.values(hooks.job).some((h) => h.hasSubscribers)).toBe(false);
    await queue.enqueue('x');
    const worker = await Worker.start(queue, () => undefined, { blockMs: 50 });
    await waitFor(async () => (await queue.counts('completed')).completed === 1, { what: 'the completion' });
    await worker.close();
    expect(Object.values(hooks.job).some((h) => h.hasSubscribers)).toBe(false);
  });
});
