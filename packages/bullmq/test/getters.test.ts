import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('queue getters', () => {
  it('getCountsPerPriority counts waiting jobs per priority (0: none), a paused queue and LIFO jobs included', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.pause();
    await queue.addBulk(Array.from({ length: 10 }, (_, i) => ({ name: 'n', data: {}, opts: { priority: i % 3 } })));
    await queue.add('n', {}, { priority: 2, lifo: true });
    expect(await queue.getCountsPerPriority([0, 1, 2, 2, 7])).toEqual({ '0': 4, '1': 3, '2': 4, '7': 0 });
    await expect(queue.getCountsPerPriority([-1])).rejects.toThrow(/priorities/);
  });

  it('getMetrics counts every completed job; exportPrometheusMetrics writes the counts and totals, labels escaped', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.add('n', {});
    await queue.add('n', {});
    closing(new Worker(name, async () => 'ok', { connection }));
    await expect.poll(() => queue.getCompletedCount()).toBe(2);
    const metrics = await queue.getMetrics('completed');
    expect(metrics.meta.count).toBe(2);
    // Echo keeps no per-minute series unless the queue is set to (setEvents({ minutes }) on @echo/queue).
    expect(metrics.data).toEqual([]);
    const text = await queue.exportPrometheusMetrics({ env: 'pro"d' });
    expect(text).toContain(`bullmq_job_count{queue="${name}", state="completed", env="pro\\"d"} 2`);
    expect(text).toContain(`bullmq_job_completed_total{queue="${name}", env="pro\\"d"} 2`);
    expect(text).toContain(`bullmq_job_failed_total{queue="${name}", env="pro\\"d"} 0`);
  });

  it('getDependencies pages a parent\'s pending and processed children, with their jobs', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const flow = closing(new FlowProducer({ connection }));
    const tree = await flow.add({ name: 'parent', queueName: name, data: {}, children: [1, 2, 3].map((i) => ({ name: `child-${String(i)}`, queueName: name, data: { i } })) });
    const parentId = tree.job.id;
    const pending = await queue.getDependencies(parentId, 'pending', 0, 1);
    expect(pending.total).toBe(3);
    expect(pending.items).toHaveLength(2);
    expect(pending.jobs.map((job) => job.name).sort()).toHaveLength(2);
    expect(pending.jobs[0]).toHaveProperty('parentKey', `bull:${name}:${parentId}`);
    const worker = closing(new Worker(name, async (job) => (job.name === 'parent' ? 'p' : job.name), { connection }));
    await nextEvent(worker, 'completed');
    const processed = await queue.getDependencies(parentId, 'processed', 0, -1);
    expect(processed.total).toBeGreaterThanOrEqual(1);
    expect(processed.items[0]?.v).toMatch(/^child-/);
    expect(await queue.getDependencies('no-such-parent', 'pending', 0, -1)).toEqual({ items: [], jobs: [], total: 0 });
  });

  it('getWorkers names each worker in rawname, BullMQ\'s client name', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const worker = closing(new Worker(name, async () => undefined, { connection, name: 'painter' }));
    await worker.waitUntilReady();
    await expect.poll(async () => (await queue.getWorkers()).map((w) => w.rawname)).toEqual([`bull:${name}:w:painter`]);
  });

  it('retryJobs retries every failed job (count is the step), and with timestamp only those that failed before it', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let fail = true;
    const worker = closing(new Worker(name, async () => { if (fail) throw new Error('no'); }, { connection }));
    const failed: string[] = [];
    const allFailed = new Promise<void>((resolve) => worker.on('failed', (job) => { failed.push(job?.id ?? ''); if (failed.length === 4) resolve(); }));
    for (let i = 0; i < 4; i++) await queue.add('n', { i });
    await allFailed;
    await queue.retryJobs({ count: 1, timestamp: 0 });
    expect(await queue.getFailedCount()).toBe(4);
    fail = false;
    await queue.retryJobs({ count: 1 });
    await expect.poll(() => queue.getCompletedCount()).toBe(4);
    await expect(queue.retryJobs({ count: 0 })).rejects.toThrow(/count/);
  });

  it("retryJobs({ state: 'completed' }) runs every kept completed job again, and with timestamp only those finished by then", async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    let runs = 0;
    const worker = closing(new Worker(name, async () => {
      runs += 1;
    }, { connection }));
    for (let i = 0; i < 3; i++) await queue.add('n', { i });
    await expect.poll(() => queue.getCompletedCount()).toBe(3);
    await queue.retryJobs({ state: 'completed', timestamp: 0 });
    expect(runs).toBe(3);
    // The bound includes the millisecond it names, as BullMQ's does: the job that finished first goes back.
    const finished = (await queue.getCompleted()).map((job) => job.finishedOn ?? Number.POSITIVE_INFINITY);
    await queue.retryJobs({ state: 'completed', timestamp: Math.min(...finished) });
    await expect.poll(() => runs).toBeGreaterThanOrEqual(4);
    await expect.poll(() => queue.getCompletedCount()).toBe(3);
    const before = runs;
    await queue.retryJobs({ state: 'completed', count: 2 });
    await expect.poll(() => runs).toBe(before + 3);
    await expect.poll(() => queue.getCompletedCount()).toBe(3);
    await worker.close();
  });

  it('remove emits removed with the job id; removeRateLimitKey ends the current window', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const job = await queue.add('n', {});
    const removed = new Promise<unknown>((resolve) => queue.once('removed', resolve));
    expect(await queue.remove(job.id)).toBe(1);
    expect(await removed).toBe(job.id);
    expect(await queue.removeRateLimitKey()).toBe(0);
  });
});
