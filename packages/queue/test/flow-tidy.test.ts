import { Connection, parseKey, StateError, type BrandedId, type JobId } from '@echo/protocol/extend';
import { uniqueName, useRedis, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const awaiting = async (queue: Queue<string>): Promise<number> => (await queue.counts('awaiting_children')).awaiting_children;

/** Every job-scoped key of `queue`, as `id` or `id:sub`, after checking nothing is unclassified. */
async function jobKeys(queue: Queue): Promise<string[]> {
  const keys = (await conn.command('KEYS', `emq:{${queue.name}}:*`)) as string[];
  const out: string[] = [];
  for (const key of keys) {
    const parsed = parseKey(key);
    expect(parsed.kind, key).not.toBe('unclassified');
    if (parsed.kind === 'job') out.push(parsed.sub === null ? parsed.id : `${parsed.id}${parsed.sub}`);
  }
  return out.sort();
}

describe('drain and flows', () => {
  it('deletes a parent whose children were all drained, up a nested tree, and leaves no orphan', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({
      parent: { payload: 'root' },
      children: [{ payload: 'a' }, { payload: 'mid', children: [{ payload: 'leaf' }] }],
    });
    expect(await awaiting(queue)).toBe(2);
    expect(await queue.drain()).toBe(4);
    expect(await queue.getState(flow.id)).toBe('absent');
    expect(await awaiting(queue)).toBe(0);
    expect(await jobKeys(queue)).toEqual([]);
  });

  it('releases the idempotency key of a step parent it deletes with its drained children', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy-key'), { connection: conn });
    const parent = await queue.enqueue('step', { dedupId: 'step-1' });
    const job = await queue.leases().claim(30_000);
    if (job === undefined) throw new Error('nothing to claim');
    await queue.leases().addChildren(job, [{ payload: 'a' }, { payload: 'b' }]);
    expect(await queue.leases().waitForChildren(job)).toBe(2);
    expect(await queue.getDedupJobId('step-1')).toBe(parent.id);
    expect(await queue.drain()).toBe(3);
    expect(await queue.getState(parent.id)).toBe('absent');
    expect(await queue.getDedupJobId('step-1')).toBeUndefined();
    expect(await jobKeys(queue)).toEqual([]);
  });

  it('keeps a parent with a child still running; it runs once that child completes', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({ parent: { payload: 'root' }, children: [{ payload: 'a' }, { payload: 'b' }] });
    const running = await queue.leases().claim(30_000);
    if (running === undefined) throw new Error('nothing claimed');
    expect(await queue.drain()).toBe(1);
    expect(await queue.getState(flow.id)).toBe('awaiting_children');
    expect(await queue.dependencies(flow.id)).toBe(1);
    await queue.leases().complete(running, 'done');
    expect(await queue.getState(flow.id)).toBe('pending');
    const parent = await queue.leases().claim(30_000);
    expect(parent?.id).toBe(flow.id);
    expect(await queue.childrenValues(flow.id)).toEqual({ [running.id]: 'done' });
  });
});

describe('a child that stalls past the threshold', () => {
  it('fails its parent under fail-parent, and releases it under ignore', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const strict = await queue.addFlow({ parent: { payload: 'p1' }, children: [{ payload: 'c1', failParentOnFailure: true }] });
    const lenient = await queue.addFlow({ parent: { payload: 'p2' }, children: [{ payload: 'c2', ignoreDependencyOnFailure: true }] });
    const first = await queue.leases().claim(1);
    const second = await queue.leases().claim(1);
    if (first === undefined || second === undefined) throw new Error('children not claimed');
    const dead: string[] = [];
    await waitFor(async () => {
      dead.push(...(await queue.maintenance().sweepStalled({ maxStalled: 1 })).dead);
      return dead.length === 2;
    }, { what: 'both children to die stalled', timeoutMs: 5000 });
    expect(await queue.getState(strict.id)).toBe('dead');
    expect(await queue.getJob(strict.id)).toMatchObject({ state: 'dead' });
    expect(await queue.getState(lenient.id)).toBe('pending');
    expect(await queue.ignoredFailures(lenient.id)).toEqual({ [lenient.children[0]?.id ?? 'missing']: 'stalled' });
    expect(await awaiting(queue)).toBe(0);
  });
});

describe('remove and flows', () => {
  it('refuses a parent awaiting children; removing its children lets it run; nothing is orphaned', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({ parent: { payload: 'p' }, children: [{ payload: 'a' }, { payload: 'b' }] });
    const error = await queue.remove(flow.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    expect(await queue.getState(flow.id)).toBe('awaiting_children');
    const [a, b] = flow.children;
    if (a === undefined || b === undefined) throw new Error('two children expected');
    await queue.remove(a.id);
    expect(await queue.dependencies(flow.id)).toBe(1);
    expect(await awaiting(queue)).toBe(1);
    await queue.remove(b.id);
    expect(await queue.getState(flow.id)).toBe('pending');
    expect(await awaiting(queue)).toBe(0);
    await queue.remove(flow.id);
    expect(await jobKeys(queue)).toEqual([]);
  });
});

describe('lane drain and flows', () => {
  const lane = 'USR0Nb1VTbfnu4';
  // No verb of ours puts a flow child in a lane (children land flat); another producer on the wire
  // may, so the lane is filled as such a producer would fill it.
  async function intoLane(queue: Queue<string>, id: string): Promise<void> {
    await conn.command('ZREM', queue.keys.pending, id);
    await conn.command('HSET', queue.keys.job(id as JobId), 'group', lane);
    await conn.command('ZADD', queue.keys.lane(lane as BrandedId), 0, id);
    await conn.command('RPUSH', queue.keys.ring, lane);
  }

  it('deletes a parent whose children were all drained from a lane, up a nested tree, and leaves no orphan', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({ parent: { payload: 'root' }, children: [{ payload: 'a' }, { payload: 'mid', children: [{ payload: 'leaf' }] }] });
    const [a, mid] = flow.children;
    const leaf = mid?.children[0];
    if (a === undefined || leaf === undefined) throw new Error('flow shape');
    await intoLane(queue, a.id);
    await intoLane(queue, leaf.id);
    expect(await awaiting(queue)).toBe(2);
    expect(await queue.laneDrain(lane)).toBe(4);
    expect(await queue.getState(flow.id)).toBe('absent');
    expect(await awaiting(queue)).toBe(0);
    expect(await jobKeys(queue)).toEqual([]);
  });

  it('lowers the count of a parent with a child still running; it runs once that child completes', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    const flow = await queue.addFlow({ parent: { payload: 'root' }, children: [{ payload: 'a' }, { payload: 'b' }] });
    const running = await queue.leases().claim(30_000);
    if (running === undefined) throw new Error('nothing claimed');
    const other = flow.children.find((c) => c.id !== running.id);
    if (other === undefined) throw new Error('flow shape');
    await intoLane(queue, other.id);
    expect(await queue.laneDrain(lane)).toBe(1);
    expect(await queue.getState(flow.id)).toBe('awaiting_children');
    expect(await queue.dependencies(flow.id)).toBe(1);
    await queue.leases().complete(running, 'done');
    expect(await queue.getState(flow.id)).toBe('pending');
    expect(await awaiting(queue)).toBe(0);
    expect(await jobKeys(queue)).toEqual([flow.id, `${flow.id}dependencies`, `${flow.id}processed`].sort());
  });
});

describe('obliterate and flows', () => {
  it('finds parents awaiting children through the index and deletes them: no key of the queue is left', async () => {
    const queue = await Queue.open<string>(uniqueName('tidy'), { connection: conn });
    await queue.addFlow({ parent: { payload: 'root' }, children: [{ payload: 'a' }, { payload: 'mid', children: [{ payload: 'leaf' }] }] });
    await queue.pause();
    await queue.obliterate({ budget: 1 });
    expect(await conn.command('KEYS', `emq:{${queue.name}}:*`)).toEqual([]);
  });
});
