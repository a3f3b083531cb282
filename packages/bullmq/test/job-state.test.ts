import { describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('queue.getJobState', () => {
  it('answers the state of a job by its id, and unknown for an id no job has', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    const waiting = await queue.add('j', {});
    const delayed = await queue.add('j', {}, { delay: 60_000 });
    expect(await queue.getJobState(waiting.id)).toBe('waiting');
    expect(await queue.getJobState(delayed.id)).toBe('delayed');
    expect(await queue.getJobState('no-such-job')).toBe('unknown');
  });
});
