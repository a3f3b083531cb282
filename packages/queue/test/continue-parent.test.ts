/**
 * `continueParentOnFailure` on a flow child: its death lets the parent run at once, its other
 * children still open, and the parent reads which child failed with `queue.ignoredFailures`. Every
 * death path: a retry at the cap, a stalled death, and a child in another queue (flow outbox).
 */
import { InvalidArgumentError, type JobId } from '@echo/protocol/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type ClaimedJob } from '../src/index.js';
import { until } from './worker-harness.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
}, 60_000);
afterAll(async () => {
  await server.stop();
});

async function open<T>(name = `cp-${String(++n)}-${String(process.pid)}`): Promise<Queue<T>> {
  return Queue.open<T>(name, { connect: { host: server.host, port: server.port, strictKeys: true } });
}

/** Claims until the job `id` comes up; the others claimed on the way are handed back in `held`. */
async function claimId<T>(q: Queue<T>, id: JobId, held: ClaimedJob<T>[] = []): Promise<ClaimedJob<T>> {
  for (;;) {
    const job = await q.leases().claim(60_000);
    if (job === undefined) throw new Error(`${id} was not claimable`);
    if (job.id === id) return job;
    held.push(job);
  }
}

const keysOf = async (q: Queue<string>, id: string): Promise<string[]> => (await q.connection.command('KEYS', `emq:{${q.name}}:job:${id}*`)) as string[];

describe('continueParentOnFailure', () => {
  it('a child dead at its cap lets the parent run now; a sibling that ends after the parent leaves nothing behind', async () => {
    const q = await open<string>();
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'fails', continueParentOnFailure: true }, { payload: 'slow' }] });
    const [fails, slow] = flow.children;
    if (fails === undefined || slow === undefined) throw new Error('two children');
    expect(await q.getState(flow.id)).toBe('awaiting_children');
    const held: ClaimedJob<string>[] = [];
    const failing = await claimId(q, fails.id, held);
    expect(await q.leases().retry(failing, 0, 1, 'card declined')).toBe('dead');
    expect(await q.getState(flow.id)).toBe('pending');
    expect(await q.ignoredFailures(flow.id)).toEqual({ [fails.id]: 'card declined' });
    expect(await q.dependencies(flow.id)).toBe(1);
    const parent = await claimId(q, flow.id, held);
    await q.leases().complete(parent, 'partial');
    const slowJob = held.find((j) => j.id === slow.id) ?? (await claimId(q, slow.id));
    await q.leases().complete(slowJob, 'late');
    expect(await keysOf(q, flow.id)).toEqual([]);
    expect(await q.getState(slow.id)).toBe('absent');
    await q.close();
  });

  it('a stalled death continues the parent too', async () => {
    const q = await open<string>();
    const flow = await q.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'hangs', continueParentOnFailure: true }, { payload: 'other' }] });
    const [hangs] = flow.children;
    if (hangs === undefined) throw new Error('a child');
    await q.leases().claim(1);
    await until(async () => (await q.maintenance().sweepStalled({ maxStalled: 1 })).dead.includes(hangs.id), 'the sweep killed the child');
    expect(await q.getState(flow.id)).toBe('pending');
    expect(await q.ignoredFailures(flow.id)).toEqual({ [hangs.id]: 'stalled' });
    await q.close();
  });

  it('a child in another queue continues its parent through the flow outbox', async () => {
    const parents = await open<string>();
    const workers = await open<string>();
    const flow = await parents.addFlow({ parent: { payload: 'parent' }, children: [{ payload: 'remote', queue: workers.name, continueParentOnFailure: true }, { payload: 'local' }] });
    const [remote] = flow.children;
    if (remote === undefined) throw new Error('a child');
    const job = await claimId(workers, remote.id);
    expect(await workers.leases().retry(job, 0, 1, 'remote boom')).toBe('dead');
    expect(await parents.getState(flow.id)).toBe('awaiting_children');
    await workers.maintenance().deliverOutbox();
    expect(await parents.getState(flow.id)).toBe('pending');
    expect(await parents.ignoredFailures(flow.id)).toEqual({ [remote.id]: 'remote boom' });
    await parents.close();
    await workers.close();
  });

  it('is refused together with ignoreDependencyOnFailure, before anything is written', async () => {
    const q = await open<string>();
    await expect(q.addFlow({ parent: { payload: 'p' }, children: [{ payload: 'c', continueParentOnFailure: true, ignoreDependencyOnFailure: true }] })).rejects.toThrow(InvalidArgumentError);
    expect(await q.connection.command('KEYS', `emq:{${q.name}}:*`)).toEqual([]);
    await q.close();
  });
});
