/**
 * A worker's concurrency changed while it runs (`setConcurrency`), and a kept completed job run
 * again (`reprocessCompleted`).
 */
import { GoneError, InvalidArgumentError, StateError } from '@echo/protocol/queue';
import { describe, expect, it } from 'vitest';
import { Worker } from '../src/index.js';
import { queuesPerFile } from './queues-per-file.js';
import { expectError, rejection, until } from './worker-harness.js';

const files = queuesPerFile('conc');

const quick = { maintenanceMs: 20, blockMs: 50 } as const;

/** Handlers held until released, with how many run now and how many ever started. */
function held(): { handler: () => Promise<void>; running: () => number; started: () => number; release: () => void } {
  let running = 0;
  let started = 0;
  let gates: (() => void)[] = [];
  return {
    handler: async () => {
      running++;
      started++;
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
    },
    running: () => running,
    started: () => started,
    release: () => {
      const open = gates;
      gates = [];
      for (const go of open) go();
    },
  };
}

describe('Worker.setConcurrency', () => {
  it('raised, more handlers start at once', async () => {
    const queue = await files.open<number>();
    await queue.enqueueMany([1, 2, 3, 4, 5].map((payload) => ({ payload })));
    const h = held();
    const worker = await Worker.start(queue, h.handler, { ...quick, concurrency: 1 });
    await until(() => h.running() === 1, 'one handler running');
    worker.setConcurrency(4);
    expect(worker.concurrency).toBe(4);
    await until(() => h.running() === 4, 'four handlers running');
    h.release();
    await until(() => h.started() === 5, 'the last job started');
    h.release();
    await worker.close();
  });

  it('lowered, running handlers finish and no more than the new count run after', async () => {
    const queue = await files.open<number>();
    await queue.enqueueMany([1, 2, 3, 4, 5, 6].map((payload) => ({ payload })));
    const h = held();
    const worker = await Worker.start(queue, h.handler, { ...quick, concurrency: 3 });
    await until(() => h.running() === 3, 'three handlers running');
    worker.setConcurrency(1);
    h.release();
    for (let started = 4; started <= 6; started++) {
      await until(() => h.started() === started, `job ${String(started)} started`);
      expect(h.running()).toBe(1);
      h.release();
    }
    await until(() => worker.stats().completed === 6, 'all completed');
    await worker.close();
  });

  it('refuses a count that is not an integer >= 1, changing nothing', async () => {
    const queue = await files.open<number>();
    const worker = await Worker.start(queue, () => undefined, { ...quick, concurrency: 2, autorun: false });
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => worker.setConcurrency(bad)).toThrow(InvalidArgumentError);
    expect(worker.concurrency).toBe(2);
    await worker.close();
  });
});

describe('Queue.reprocessCompleted', () => {
  it('runs a kept completed job again; another state is refused, a gone job answers GoneError', async () => {
    const queue = await files.open<number>();
    await queue.setRetention({ completed: { count: 100 } });
    const { id } = await queue.enqueue(7);
    expectError(await rejection(queue.reprocessCompleted(id)), StateError);
    let runs = 0;
    const worker = await Worker.start(queue, () => ++runs, quick);
    await until(async () => (await queue.getJob(id))?.state === 'completed', 'first run completed');
    await queue.reprocessCompleted(id);
    await until(() => runs === 2, 'second run');
    await until(async () => (await queue.getJob(id))?.state === 'completed', 'second run completed');
    const row = await queue.getJob(id);
    expect(row?.attempts).toBe(2);
    expect(row?.result).toBe(2);
    await worker.close();
    await queue.remove(id);
    expectError(await rejection(queue.reprocessCompleted(id)), GoneError);
  });
});
