import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('worker.close(true)', () => {
  it('returns without waiting for a running job, whose lock then lapses so another worker takes it as stalled and runs it', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let release: () => void = () => undefined;
    const hang = new Promise<void>((resolve) => (release = resolve));
    const first = new Worker(name, () => hang, { connection, lockDuration: 1000, stalledInterval: 100 });
    const active = nextEvent<[Job]>(first, 'active');
    const job = await queue.add('long', { n: 1 });
    await active;
    const started = Date.now();
    await first.close(true);
    // A plain close waits for the processor (which never returns here); a forced one does not.
    expect(Date.now() - started).toBeLessThan(5000);
    const second = closing(new Worker(name, async (j) => `ran ${j.id}`, { connection, stalledInterval: 100 }));
    const [stalledId] = await nextEvent<[string]>(second, 'stalled', 20_000);
    const [completed] = await nextEvent<[Job]>(second, 'completed', 20_000);
    expect(stalledId).toBeTypeOf('string');
    expect(completed.id).toBe(job.id);
    expect(completed.stalledCounter).toBe(1);
    expect(completed.returnvalue).toBe(`ran ${job.id}`);
    release();
  });
});
