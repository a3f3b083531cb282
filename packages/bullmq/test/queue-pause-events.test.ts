import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('pausing a queue, as QueueEvents hears it', () => {
  it('queue.pause() and queue.resume() are heard as paused and resumed, with an event id', async () => {
    const name = queueName();
    const queue = closing(new Queue(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const paused = nextEvent<[Record<string, never>, string]>(queueEvents, 'paused');
    await queue.pause();
    const [args, id] = await paused;
    expect(args).toEqual({});
    expect(typeof id).toBe('string');
    expect(await queue.isPaused()).toBe(true);
    const resumed = nextEvent<[Record<string, never>, string]>(queueEvents, 'resumed');
    await queue.resume();
    expect((await resumed)[0]).toEqual({});
    expect(await queue.isPaused()).toBe(false);
  });
});
