import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker, type Job } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('guide: events', () => {
  it("the Queue emits waiting for the jobs it adds; the Worker emits drained and completed", async () => {
    const name = queueName('Paint');
    const myQueue = closing(new Queue(name, { connection }));
    const waiting: string[] = [];
    myQueue.on('waiting', (job: Job) => waiting.push(job.id));
    const job = await myQueue.add('paint', { color: 'red' });
    expect(waiting).toEqual([job.id]);
    const myWorker = closing(new Worker(name, async () => 'ok', { connection }));
    const drained = nextEvent(myWorker, 'drained');
    const completed = nextEvent<[Job]>(myWorker, 'completed');
    expect((await completed)[0].id).toBe(job.id);
    await drained;
  });

  it('QueueEvents: a listening QueueEvents turns waiting and active on; ids are the application ids', async () => {
    const name = queueName('Paint');
    const queueEvents = closing(new QueueEvents(name, { connection }));
    const heard: string[] = [];
    queueEvents.on('waiting', ({ jobId }) => heard.push(`waiting ${jobId}`));
    queueEvents.on('active', ({ jobId, prev }) => heard.push(`active ${jobId} from ${String(prev)}`));
    const completed = nextEvent<[{ jobId: string }]>(queueEvents, 'completed');
    await queueEvents.waitUntilReady();
    await closing(new Queue(name, { connection })).add('paint', { color: 'red' }, { jobId: 'red-1' });
    closing(new Worker(name, async () => 'ok', { connection }));
    expect((await completed)[0].jobId).toBe('red-1');
    expect(heard).toEqual(['waiting red-1', 'active red-1 from waiting']);
  });

  it('QueueEvents: delayed carries the due time; removed names the job', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const delayed = nextEvent<[{ jobId: string; delay: number }]>(queueEvents, 'delayed');
    const before = Date.now();
    const job = await queue.add('later', {}, { delay: 60_000 });
    const [{ jobId, delay }] = await delayed;
    expect(jobId).toBe(job.id);
    expect(delay).toBeGreaterThanOrEqual(before + 59_000);
    const removed = nextEvent<[{ jobId: string }]>(queueEvents, 'removed');
    await job.remove();
    expect((await removed)[0].jobId).toBe(job.id);
  });
});

describe('QueueEvents ids', () => {
  it('completed names a custom id even when the job row was deleted before any other event reached the listener', async () => {
    const name = queueName();
    const queueEvents = closing(new QueueEvents(name, { connection }));
    const completed = nextEvent<[{ jobId: string }]>(queueEvents, 'completed');
    await queueEvents.waitUntilReady();
    await closing(new Queue(name, { connection })).add('paint', {}, { jobId: 'only-completed-heard' });
    closing(new Worker(name, async () => 'ok', { connection }));
    expect((await completed)[0].jobId).toBe('only-completed-heard');
  });
});

describe('QueueEvents as BullMQ reports', () => {
  it('with autorun: false, waitUntilReady resolves before run(), and run() twice is refused', async () => {
    const name = queueName();
    const queueEvents = closing(new QueueEvents(name, { connection, autorun: false }));
    await queueEvents.waitUntilReady();
    const running = queueEvents.run();
    await expect(queueEvents.run()).rejects.toThrow('Queue Events is already running.');
    await queueEvents.close();
    await expect(running).resolves.toBeUndefined();
  });

  it('drained comes once the last job finished, added names the job, and an undefined result is null', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const added = nextEvent<[{ jobId: string; name: string }]>(queueEvents, 'added');
    const completed = nextEvent<[{ jobId: string; returnvalue: unknown }]>(queueEvents, 'completed');
    const drained = nextEvent(queueEvents, 'drained');
    closing(new Worker(name, async () => { await new Promise((r) => setTimeout(r, 50)); }, { connection, concurrency: 3 }));
    await queue.addBulk([{ name: 'a', data: {} }, { name: 'b', data: {} }, { name: 'c', data: {} }]);
    expect((await added)[0]).toMatchObject({ jobId: '1', name: 'a' });
    expect((await completed)[0].returnvalue).toBeNull();
    await drained;
    expect(await queue.getCompletedCount()).toBe(3);
  });
});
