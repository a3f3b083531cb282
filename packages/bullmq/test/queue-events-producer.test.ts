import { describe, expect, it } from 'vitest';
import { QueueEvents, QueueEventsProducer } from '../src/index.js';
import { closing, nextEvent, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('QueueEventsProducer', () => {
  it('publishes an application event that the queue\'s QueueEvents emit under its name, fields as text', async () => {
    const name = queueName();
    const producer = closing(new QueueEventsProducer(name, { connection }));
    const queueEvents = closing(new QueueEvents(name, { connection }));
    await queueEvents.waitUntilReady();
    const heard = nextEvent<[Record<string, string>, string]>(queueEvents, 'example');
    await producer.publishEvent({ eventName: 'example', custom: 'value', n: 2 });
    const [args, id] = await heard;
    expect(args).toEqual({ custom: 'value', n: '2' });
    expect(typeof id).toBe('string');
  });

  it('refuses a missing event name and a bad maxEvents, and unknown options', async () => {
    const producer = closing(new QueueEventsProducer(queueName(), { connection }));
    await expect(producer.publishEvent({ eventName: '' })).rejects.toThrow(/eventName/);
    await expect(producer.publishEvent({ eventName: 'x' }, -1)).rejects.toThrow(/maxEvents/);
    expect(() => new QueueEventsProducer(queueName(), { connection, streams: {} } as never)).toThrow(/streams/);
  });
});
