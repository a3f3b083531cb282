/**
 * `counts()` with no names is the overview: every state and counter it knows, as `counts(name)`
 * answers each one (BullMQ users call `getJobCounts()` the same way).
 */
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { Connection } from '@echo/protocol/queue';
import { Queue, type CountName } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

describe('counts() with no names', () => {
  it('answers every state and counter, in a fixed order, each as counts(name) does', async () => {
    const q = await Queue.open<string>(uniqueName('counts'), { connection: conn, keep: { completed: { count: 10 } } });
    const take = async (): Promise<NonNullable<Awaited<ReturnType<ReturnType<Queue<string>['leases']>['claim']>>>> => {
      const job = await q.leases().claim(30_000);
      if (job === undefined) throw new Error('nothing to claim');
      return job;
    };
    await q.enqueue('done');
    await q.leases().complete(await take(), 'ok');
    await q.enqueue('dies');
    expect(await q.leases().retry(await take(), 0, 1, 'boom')).toBe('dead');
    await q.enqueue('runs');
    await take();
    await q.enqueue('waits');
    await q.enqueue('later', { delayMs: 600_000 });
    await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'child' }] });
    await q.enqueueInLane('tenant-a', 'lane job');
    await q.enqueueInLane('tenant-b', 'lane job');

    const all = await q.counts();
    expectTypeOf(all).toEqualTypeOf<Record<CountName, number>>();
    expect(Object.keys(all)).toEqual(['pending', 'lanes', 'active', 'scheduled', 'awaiting_children', 'dead', 'expired', 'retained', 'completed', 'failed']);
    expect(all).toEqual({ pending: 2, lanes: 2, active: 1, scheduled: 1, awaiting_children: 1, dead: 1, expired: 0, retained: 1, completed: 1, failed: 1 });
    const one = {} as Record<string, number>;
    for (const name of Object.keys(all) as CountName[]) one[name] = (await q.counts(name))[name];
    expect(one).toEqual(all);
    await q.close();
  });
});
