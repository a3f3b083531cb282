import { Bus } from '@echo/bus';
import { Connection, slot } from '@echo/protocol/extend';
import { Queue } from '@echo/queue';
import { startCluster, type RedisCluster } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../src/index.js';

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

describe('Admin on a 3-master cluster', () => {
  it('finds queues and streams on every master, lists and retries jobs on their slot', async () => {
    // Names whose slots spread over the three masters (16384 slots split in thirds).
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
    const thirds = new Set(names.map((n) => Math.floor(slot(`emq:{${n}}:pending`) / 5462)));
    expect(thirds.size).toBe(3);
    for (const name of names) {
      const queue = await Queue.open<string>(name, { connection: conn });
      await queue.enqueue(`job of ${name}`);
      await (await Bus.open(name, { connection: conn })).stream('log').append({ from: name });
    }
    const admin = Admin.over(conn);
    expect(await admin.queues()).toEqual(names);
    expect((await admin.streams()).map((s) => s.queue)).toEqual(names);

    const queue = await Queue.open<string>('echo', { connection: conn });
    const job = await queue.leases().claim(30_000);
    await queue.leases().retry(job!, 0, 1, 'boom');
    expect((await admin.jobs('echo', 'dead')).jobs.map((j) => [j.id, j.lastError])).toEqual([[job!.id, 'boom']]);
    expect(await admin.retryAllDead('echo')).toEqual({ retried: 1, skipped: 0 });
    expect((await admin.summary('echo')).counts).toMatchObject({ pending: 1, dead: 0, failed: 1 });
    expect(await admin.workers()).toBe(0);
  });
});
