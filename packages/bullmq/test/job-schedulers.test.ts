import { describe, expect, it } from 'vitest';
import type { Job} from '../src/index.js';
import { Queue, Worker } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: job schedulers', () => {
  it('upsertJobScheduler every 200 ms makes jobs from its template', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.upsertJobScheduler('my-scheduler-id', { every: 200 }, { name: 'my-job-name', data: { foo: 'bar' } });
    const worker = closing(new Worker(name, async (job) => [job.name, job.data], { connection }));
    const [job, result] = await nextEvent<[Job, unknown]>(worker, 'completed');
    expect(result).toEqual(['my-job-name', { foo: 'bar' }]);
    expect(job.name).toBe('my-job-name');
  });

  it('a cron template with attempts: its jobs are retried', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    await queue.upsertJobScheduler('retrying', { every: 100 }, { name: 'flaky', data: {}, opts: { backoff: 3, attempts: 5, removeOnFail: 1000 } });
    let runs = 0;
    const worker = closing(new Worker(name, async () => { runs++; if (runs < 3) throw new Error('flaky'); return runs; }, { connection }));
    const [, result] = await nextEvent<[Job, unknown]>(worker, 'completed');
    expect(result).toBe(3);
  });

  it('getJobSchedulers lists them, getJobScheduler finds one, removeJobScheduler answers whether it existed', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.upsertJobScheduler('my-scheduler-id', { pattern: '0 15 3 * * *' }, { name: 'my-job-name', data: { foo: 'bar' } });
    await queue.upsertJobScheduler('every-minute', { every: 60_000 });
    const schedulers = await queue.getJobSchedulers(0, 9, true);
    expect(schedulers.map((s) => s.key).sort()).toEqual(['every-minute', 'my-scheduler-id']);
    expect(await queue.getJobScheduler('my-scheduler-id')).toMatchObject({ key: 'my-scheduler-id', name: 'my-job-name', pattern: '0 15 3 * * *', template: { data: { foo: 'bar' } } });
    expect(await queue.removeJobScheduler('every-minute')).toBe(true);
    expect(await queue.removeJobScheduler('every-minute')).toBe(false);
    expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual(['my-scheduler-id']);
  });

  it('add with repeat upserts a scheduler (the legacy repeatable jobs)', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await queue.add('report', { n: 1 }, { repeat: { every: 60_000 } });
    await queue.add('report', { n: 2 }, { repeat: { every: 60_000 } });
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({ key: 'report:60000', every: 60_000, template: { data: { n: 2 } } });
  });
});
