import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from '../src/index.js';
import { version } from '../src/version.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('queue meta', () => {
  it('getVersion answers the library and version a Queue recorded at open; skipMetasUpdate records nothing', async () => {
    const name = queueName();
    const quiet = closing(new Queue(name, { connection, skipMetasUpdate: true }));
    expect(await quiet.getVersion()).toBe(null);
    const queue = closing(new Queue(name, { connection }));
    expect(await queue.getVersion()).toBe(`bullmq-echo:${version}`);
    // Another Queue's record is what a skipping Queue reads.
    expect(await quiet.getVersion()).toBe(`bullmq-echo:${version}`);
  });

  it('getMeta reports the pause, the global concurrency and rate limit, the events bound and the version', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    expect(await queue.getMeta()).toEqual({ paused: false, maxLenEvents: 10000, version: `bullmq-echo:${version}` });
    await queue.setGlobalConcurrency(3);
    await queue.setGlobalRateLimit(2, 500);
    await queue.pause();
    expect(await queue.getMeta()).toEqual({ paused: true, concurrency: 3, max: 2, duration: 500, maxLenEvents: 10000, version: `bullmq-echo:${version}` });
  });

  it('streams.events.maxLen is recorded as maxLenEvents and bounds the journal; a bad one is refused before anything opens', async () => {
    const queue = closing(new Queue(queueName(), { connection, streams: { events: { maxLen: 5 } } }));
    expect((await queue.getMeta()).maxLenEvents).toBe(5);
    expect(() => new Queue(queueName(), { connection, streams: { events: { maxLen: -1 } } })).toThrow(/maxLen/);
    expect(() => new Queue(queueName(), { connection, streams: { events: { max: 1 } as never } })).toThrow(/max/);
    expect(() => new Queue(queueName(), { connection, skipMetasUpdate: 'yes' as never })).toThrow(/skipMetasUpdate/);
  });

  it('getQueueEvents lists each QueueEvents listening to the queue', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    expect(await queue.getQueueEvents()).toEqual([]);
    const first = closing(new QueueEvents(name, { connection }));
    await first.waitUntilReady();
    expect(await queue.getQueueEvents()).toHaveLength(1);
    const second = closing(new QueueEvents(name, { connection }));
    await second.waitUntilReady();
    const listed = await queue.getQueueEvents();
    expect(listed).toHaveLength(2);
    expect(listed[0]?.name).toBe(name);
    await second.close();
    expect(await queue.getQueueEvents()).toHaveLength(1);
  });
});
