import { describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('job option sizeLimit', () => {
  it("refuses data longer than the limit (as JSON, in UTF-8 bytes) with BullMQ's text, adding nothing; data within it is added", async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    await expect(queue.add('big', { text: 'é'.repeat(10) }, { sizeLimit: 20 })).rejects.toThrow('The size of job big exceeds the limit 20 bytes');
    await expect(queue.addBulk([{ name: 'bulk', data: 'x'.repeat(30), opts: { sizeLimit: 10 } }])).rejects.toThrow('The size of job bulk exceeds the limit 10 bytes');
    expect(await queue.count()).toBe(0);
    const small = await queue.add('small', { a: 1 }, { sizeLimit: 100 });
    expect(await small.getState()).toBe('waiting');
    expect(small.opts.sizeLimit).toBe(100);
    expect((await queue.getJob(small.id))?.opts.sizeLimit).toBe(100);
  });
});
