/**
 * Step jobs and the index of waiting parents on a 3-master cluster: a parent and its children on
 * different slots (the fan-in crosses slots only through the outbox), and a lane drain that tidies
 * parents on the parent's own slot.
 */
import { Connection, slot } from '@echo/protocol/extend';
import { startCluster, uniqueName, type RedisCluster } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type ClaimedJob } from '../src/index.js';

let cluster: RedisCluster;
let conn: Connection;

beforeAll(async () => {
  cluster = await startCluster({ masters: 3 });
  conn = await Connection.connect({ cluster: cluster.seeds, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
  await cluster.stop();
});

async function claimed(q: Queue<string>): Promise<ClaimedJob<string>> {
  const job = await q.leases().claim(30_000);
  if (job === undefined) throw new Error(`nothing to claim in ${q.name}`);
  return job;
}

/** Two queues whose keys live on different masters. */
async function apart(): Promise<[Queue<string>, Queue<string>]> {
  const a = uniqueName('cstep');
  let b = uniqueName('cstep');
  while (Math.floor(slot(`emq:{${a}}:pending`) / 5462) === Math.floor(slot(`emq:{${b}}:pending`) / 5462)) b = uniqueName('cstep');
  return [await Queue.open<string>(a, { connection: conn }), await Queue.open<string>(b, { connection: conn })];
}

const awaiting = async (q: Queue<string>): Promise<number> => (await q.counts('awaiting_children')).awaiting_children;

describe('step jobs on a 3-master cluster', () => {
  it('a parent waits for children on its own slot and on another master, and runs again at its priority', async () => {
    const [parents, kids] = await apart();
    await parents.enqueue('parent', { priority: 3 });
    const job = await claimed(parents);
    await parents.leases().addChildren(job, [{ payload: 'here' }, { payload: 'there', queue: kids.name }]);
    expect(await parents.leases().waitForChildren(job)).toBe(2);
    expect(await awaiting(parents)).toBe(1);
    const here = await claimed(parents);
    await parents.leases().complete(here, 'r-here');
    expect(await parents.getState(job.id)).toBe('awaiting_children');
    const there = await claimed(kids);
    await kids.leases().complete(there, 'r-there');
    expect((await kids.maintenance().deliverOutbox()).delivered).toBe(1);
    expect(await awaiting(parents)).toBe(0);
    expect(Number(await conn.command('ZSCORE', parents.keys.pending, job.id))).toBe(-3);
    const again = await claimed(parents);
    expect(again).toMatchObject({ id: job.id, attempts: 2 });
    expect(await parents.childrenValues(job.id)).toEqual({ [here.id]: 'r-here', [there.id]: 'r-there' });
  });

  it('drain and a flow parent: the index empties with the parent', async () => {
    const [q] = await apart();
    await q.addFlow({ parent: { payload: 'root' }, children: [{ payload: 'a' }, { payload: 'mid', children: [{ payload: 'leaf' }] }] });
    expect(await awaiting(q)).toBe(2);
    expect(await q.drain()).toBe(4);
    expect(await awaiting(q)).toBe(0);
    expect(await conn.command('EXISTS', q.keys.waitingChildren)).toBe(0);
  });
});
