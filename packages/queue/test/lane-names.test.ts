/**
 * Lanes take the names users have (`'tenantA'`, `'acme-corp'`): every lane verb maps a name to the
 * branded group id the wire keys lanes by, and reads give the name back.
 */
import { Connection, InvalidArgumentError, isBrandedId, mintId } from '@echo/protocol/queue';
import { useRedis, uniqueName } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneGroupId, Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
}, 60_000);
afterAll(async () => {
  await conn.close();
});

describe('lane names', () => {
  it('maps a name to one stable branded group id, and keeps a branded id as it is', () => {
    const a = laneGroupId('tenantA');
    expect(isBrandedId(a)).toBe(true);
    expect(a.startsWith('GRP')).toBe(true);
    expect(laneGroupId('tenantA')).toBe(a);
    expect(laneGroupId('acme-corp')).not.toBe(a);
    const id = mintId('GRP');
    expect(laneGroupId(id)).toBe(id);
    expect(() => laneGroupId('')).toThrow(InvalidArgumentError);
    expect(() => laneGroupId('x'.repeat(257))).toThrow(InvalidArgumentError);
  });

  it('admits into a named lane; the wire holds the group id, reads give the name back', async () => {
    const q = await Queue.open<string>(uniqueName('lanes'), { connection: conn });
    const { id } = await q.enqueueInLane('tenantA', 'a1');
    await q.enqueueInLane('tenantA', 'a2');
    await q.enqueueInLane('acme-corp', 'c1');
    expect(await q.laneDepths(['tenantA', 'acme-corp', 'nobody'])).toEqual([2, 1, 0]);
    const job = await q.getJob(id);
    expect(job?.lane).toBe('tenantA');
    expect(job?.group).toBe(laneGroupId('tenantA'));
    expect(await conn.command('ZCARD', `${q.keys.laneRoot}${laneGroupId('tenantA')}:pending`)).toBe(2);
    await q.close();
  });

  it('every lane verb takes the name', async () => {
    const q = await Queue.open<string>(uniqueName('lanes'), { connection: conn });
    const { id } = await q.enqueueInLane('tenantA', 'a1');
    await q.enqueueInLane('tenantB', 'b1');
    await q.laneLimit('tenantA', 1);
    await q.laneWeight('tenantA', 2);
    await q.laneRateLimit('tenantA', { max: 5, durationMs: 1000 });
    await q.lanePause('tenantB');
    expect(await q.laneReassign(id, 'acme-corp')).toBe('reassigned');
    expect((await q.getJob(id))?.lane).toBe('acme-corp');
    expect(await q.laneDepths(['tenantA', 'acme-corp'])).toEqual([0, 1]);
    expect(await q.laneDrain('acme-corp')).toBe(1);
    await q.laneResume('tenantB');
    const served: string[] = [];
    const worker = await Worker.start(q, (job) => void served.push(job.payload), { source: 'lanes', maintenanceMs: 20, blockMs: 50 });
    try {
      await until(() => served.length === 1, 'the tenantB job ran');
    } finally {
      await worker.close();
    }
    expect(served).toEqual(['b1']);
    await q.close();
  });

  it('an id-named lane reads back as its id', async () => {
    const q = await Queue.open<string>(uniqueName('lanes'), { connection: conn });
    const group = mintId('GRP');
    const { id } = await q.enqueueInLane(group, 'g1');
    expect((await q.getJob(id))?.lane).toBe(group);
    await q.close();
  });
});
