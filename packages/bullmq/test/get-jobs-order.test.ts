import { describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';
import { closing, queueName, redisConnection } from './setup.js';

const connection = await redisConnection();

describe('getJobs(…, asc)', () => {
  it('answers the oldest first, sliced as Redis slices a range', async () => {
    const queue = closing(new Queue(queueName(), { connection }));
    for (const n of [1, 2, 3]) await queue.add('x', { n }, { delay: 60_000 * n });
    const data = async (start: number, end: number): Promise<unknown[]> => (await queue.getJobs('delayed', start, end, true)).map((j) => j.data);
    expect(await data(0, -1)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await data(1, 2)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await data(-2, -1)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await data(10, 12)).toEqual([]);
  });
});
