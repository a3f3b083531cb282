import { Connection, mintId } from '@echo/protocol/queue';
import { useRedis, uniqueName, waitFor } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowCycleError, FlowTooDeepError, Queue, Worker, type FlowChild } from '../src/index.js';

let conn: Connection;
beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

const fast = { maintenanceMs: 20, blockMs: 50, maxAttempts: 1 } as const;

function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  return waitFor(check, { timeoutMs });
}

interface Step {
  name: string;
  fail?: boolean;
}

async function open(name = uniqueName('flow')): Promise<Queue<Step>> {
  return Queue.open<Step>(name, { connection: conn });
}

describe('flows through the public API', () => {
  it('holds a same-queue parent until both children complete, then runs it with their results', async () => {
    const q = await open();
    const order: string[] = [];
    const flow = await q.addFlow({ parent: { payload: { name: 'parent' } }, children: [{ payload: { name: 'a' } }, { payload: { name: 'b' } }] });
    expect(await q.getState(flow.id)).toBe('awaiting_children');
    expect(await q.dependencies(flow.id)).toBe(2);
    let seenValues: Record<string, string> = {};
    const worker = await Worker.start(q, async (job) => {
      order.push(job.payload.name);
      if (job.payload.name === 'parent') seenValues = await q.childrenValues(job.id);
      return `r-${job.payload.name}`;
    }, fast);
    await until(async () => (await q.getState(flow.id)) === 'absent');
    await worker.close();
    expect(order.at(-1)).toBe('parent');
    const [a, b] = flow.children;
    expect(seenValues).toEqual({ [a!.id]: 'r-a', [b!.id]: 'r-b' });
  });

  it('crosses queues and levels: a grandchild releases its node, the node releases the root', async () => {
    const [q1, q2, q3] = await Promise.all([open(), open(), open()]);
    const ran: string[] = [];
    const tree: FlowChild<Step> = { payload: { name: 'node' }, queue: q2.name, children: [{ payload: { name: 'leaf' }, queue: q3.name }] };
    const flow = await q1.addFlow({ parent: { payload: { name: 'root' } }, children: [tree] });
    expect(await q1.getState(flow.id)).toBe('awaiting_children');
    expect(await q2.getState(flow.children[0]!.id)).toBe('awaiting_children');
    const workers = await Promise.all([q1, q2, q3].map((q) => Worker.start(q, (job) => void ran.push(job.payload.name), fast)));
    await until(async () => (await q1.getState(flow.id)) === 'absent');
    await Promise.all(workers.map((w) => w.close()));
    expect(ran).toEqual(['leaf', 'node', 'root']);
  });

  it('fails every level up when a fail-parent grandchild dies, once', async () => {
    const [q1, q2] = await Promise.all([open(), open()]);
    const flow = await q1.addFlow({
      parent: { payload: { name: 'root' } },
      children: [{ payload: { name: 'node' }, children: [{ payload: { name: 'leaf', fail: true }, queue: q2.name }] }],
    });
    const node = flow.children[0]!;
    const workers = await Promise.all(
      [q1, q2].map((q) =>
        Worker.start(q, (job) => {
          if (job.payload.fail) throw new Error(`${job.payload.name} broke`);
        }, fast),
      ),
    );
    await until(async () => (await q1.getState(flow.id)) === 'dead');
    await Promise.all(workers.map((w) => w.close()));
    expect(await q1.getState(node.id)).toBe('dead');
    expect(await conn.command('HGETALL', q1.keys.jobSub(flow.id, 'failed'))).toEqual([node.id, 'leaf broke']);
    // Only the leaf failed as a job; the node and the root died by their flow arm, uncounted.
    expect(await q2.counts('failed', 'dead')).toEqual({ failed: 1, dead: 1 });
    expect(await q1.counts('failed', 'dead')).toEqual({ failed: 0, dead: 2 });
  });

  it('fails every level up in one queue: the worker passes the node`s death on to the root', async () => {
    const q = await open();
    const flow = await q.addFlow({
      parent: { payload: { name: 'root' } },
      children: [{ payload: { name: 'node' }, children: [{ payload: { name: 'leaf', fail: true } }] }],
    });
    const worker = await Worker.start(q, (job) => {
      if (job.payload.fail) throw new Error(`${job.payload.name} broke`);
    }, fast);
    await until(async () => (await q.getState(flow.id)) === 'dead');
    await worker.close();
    expect(await q.getState(flow.children[0]!.id)).toBe('dead');
  });

  it('lets an ignore-dependency child die without failing its parent', async () => {
    const q = await open();
    const flow = await q.addFlow({
      parent: { payload: { name: 'parent' } },
      children: [{ payload: { name: 'flaky', fail: true }, ignoreDependencyOnFailure: true }, { payload: { name: 'ok' } }],
    });
    const worker = await Worker.start(q, (job) => {
      if (job.payload.fail) throw new Error('ignored');
    }, fast);
    await until(async () => (await q.getState(flow.id)) === 'absent');
    await worker.close();
    expect(await q.counts('completed', 'dead')).toEqual({ completed: 2, dead: 1 });
  });

  it('refuses a cycle, a tree deeper than 8 and an empty child list before writing anything', async () => {
    const q = await open();
    const id = mintId('JOB');
    await expect(q.addFlow({ parent: { id, payload: { name: 'p' } }, children: [{ id, payload: { name: 'c' } }] })).rejects.toBeInstanceOf(FlowCycleError);
    let deep: FlowChild<Step> = { payload: { name: 'bottom' } };
    for (let i = 0; i < 8; i++) deep = { payload: { name: `l${i}` }, children: [deep] };
    await expect(q.addFlow({ parent: { payload: { name: 'top' } }, children: [deep] })).rejects.toBeInstanceOf(FlowTooDeepError);
    await expect(q.addFlow({ parent: { payload: { name: 'p' } }, children: [] })).rejects.toThrow(/at least one child/);
    expect(await conn.command('EXISTS', q.keys.job(id))).toBe(0);
  });

  it('lands the flows of a bulk add that can land, and leaves a refused one held', async () => {
    const [q, other] = await Promise.all([open(), open()]);
    const errors: number[] = [];
    const badChild = mintId('ORD');
    const held = mintId('JOB');
    const landed = await q.addFlowBulk(
      [
        { parent: { payload: { name: 'p1' } }, children: [{ payload: { name: 'c1' } }] },
        { parent: { payload: { name: 'p2' } }, children: [{ payload: { name: 'c2' } }] },
        { parent: { id: held, payload: { name: 'p3' } }, children: [{ id: badChild, payload: { name: 'bad' }, queue: other.name }] },
      ],
      (index) => errors.push(index),
    );
    expect(landed).toHaveLength(2);
    expect(errors).toEqual([2]);
    expect(await q.getState(held)).toBe('awaiting_children');
    expect(await q.counts('pending')).toEqual({ pending: 2 });
  });

  it('[TS] flow nodes take a priority and a leaf a delay: children run by priority, the delayed one after its delay', async () => {
    const q = await open();
    const added = Date.now();
    const flow = await q.addFlow({
      parent: { payload: { name: 'parent' }, priority: 5 },
      children: [{ payload: { name: 'low' }, priority: 1 }, { payload: { name: 'high' }, priority: 9 }, { payload: { name: 'late' }, delayMs: 400 }],
    });
    const late = flow.children[2]!.id;
    expect(await q.getState(late)).toBe('scheduled');
    const ran: string[] = [];
    let lateAt = 0;
    const worker = await Worker.start(q, (job) => {
      ran.push(job.payload.name);
      if (job.payload.name === 'late') lateAt = Date.now();
    }, { ...fast, concurrency: 1 });
    await until(async () => (await q.getState(flow.id)) === 'absent');
    await worker.close();
    // One slot: the waiting children by priority (no priority is 0, last); the parent after all.
    expect(ran).toEqual(['high', 'low', 'late', 'parent']);
    expect(lateAt - added).toBeGreaterThanOrEqual(400);
  });

  it('[TS] refuses a delay on a node with children, and a bad priority, before writing anything', async () => {
    const q = await open();
    const id = mintId('JOB');
    await expect(q.addFlow({ parent: { payload: { name: 'p' }, id }, children: [{ payload: { name: 'n' }, delayMs: 10, children: [{ payload: { name: 'leaf' } }] }] })).rejects.toThrow(/only a leaf/);
    await expect(q.addFlow({ parent: { payload: { name: 'p' }, id, priority: 1.5 }, children: [{ payload: { name: 'c' } }] })).rejects.toThrow(/priority/);
    await expect(q.addFlow({ parent: { payload: { name: 'p' }, id }, children: [{ payload: { name: 'c' }, delayMs: -1 }] })).rejects.toThrow(/delayMs/);
    expect(await q.getState(id)).toBe('absent');
  });
});
