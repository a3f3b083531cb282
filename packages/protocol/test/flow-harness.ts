/**
 * The flow transitions driven by hand, script by script, on one strict connection per test file: a
 * queue's flow verbs (`Q`), the pump's outbox sweep, and raw reads of what the scripts wrote.
 */
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { type BrandedId, type JobId } from '../src/ids/index.js';
import { queueKeys, slot, type QueueKeys } from '../src/keys/index.js';
import * as t from '../src/transitions/index.js';
import { parseOutboxEntry } from '../src/formats/outbox-entry.js';

export type Policy = 'fp' | 'id';
export type Claimed = [string, string, number, ...unknown[]];

let conn: Connection;

/** Opens the file's connection before its tests and closes it after them. */
export function useFlowConnection(): void {
  beforeAll(async () => {
    const server = await useRedis();
    conn = await Connection.connect({ url: server.url, strictKeys: true });
    expect(conn.strictKeys).toBe(true);
  });

  afterAll(async () => {
    await conn.close();
  });
}

/** Sends a typed transition and answers its raw reply, which these tests read literally. */
export function raw(tr: { script: Parameters<Connection['run']>[0]; keys: readonly string[]; args: Parameters<Connection['run']>[2] }): Promise<unknown> {
  return conn.run(tr.script, tr.keys, tr.args);
}

export function cmd<T = unknown>(name: string, ...args: (string | number)[]): Promise<T> {
  return conn.command(name, ...args) as Promise<T>;
}

export async function hgetall(key: string): Promise<Record<string, string>> {
  const flat = await cmd<string[]>('HGETALL', key);
  const out: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

/** The flow verbs of one queue, each a single script call in the catalog's key order. */
export class Q {
  readonly k: QueueKeys;

  constructor(name: string) {
    this.k = queueKeys(name);
  }

  row(id: string): Promise<Record<string, string>> {
    return hgetall(this.k.job(id as BrandedId));
  }

  sub(id: string, s: 'dependencies' | 'processed' | 'failed' | 'unsuccessful'): string {
    return this.k.jobSub(id as BrandedId, s);
  }

  addFlow(pid: BrandedId, payload: string, children: readonly [BrandedId, string, Policy][]): Promise<unknown> {
    return raw(t.enqueueFlow({ queue: this.k.queue, parent: { id: pid, payload }, children: children.map(([id, p, policy]) => ({ id, payload: p, policy })) }));
  }

  hold(pid: BrandedId, payload: string, n: number, link: [string, string, string] = ['', '', '']): Promise<unknown> {
    const [id, queue, policy] = link;
    return raw(t.holdParent({ queue: this.k.queue, id: pid, payload, children: n, link: id === '' ? undefined : { id, queue, policy: policy as Policy } }));
  }

  addChild(cid: BrandedId, payload: string, pid: string, pqueue: string, policy: Policy): Promise<unknown> {
    return raw(t.enqueueFlowChild({ queue: this.k.queue, id: cid, payload, parent: { id: pid, queue: pqueue, policy } }));
  }

  async claim(): Promise<Claimed | []> {
    return (await raw(t.claim({ queue: this.k.queue, leaseMs: 30_000 }))) as Claimed | [];
  }

  /** complete in mode sq (parent in this queue), xq (parent in `parentQueue`) or plain. */
  complete(id: string, token: number, link?: { pid: string; result: string; parent?: Q }): Promise<unknown> {
    const parent = link ? { id: link.pid as JobId, queue: (link.parent ?? this).k.queue, policy: 'fp' as const } : undefined;
    return raw(t.complete({ queue: this.k.queue, job: { id, attempts: token, parent }, ...(link ? { result: link.result } : {}) }));
  }

  /** retry at the cap (max 1), so the child dies and its flow failure arm runs. */
  kill(id: string, token: number, error: string, mode: string, pid: string, parent?: Q): Promise<unknown> {
    const policy = mode.endsWith(':id') ? 'id' : 'fp';
    const link = { id: pid as JobId, queue: (parent ?? this).k.queue, policy } as const;
    return raw(t.retry({ queue: this.k.queue, job: { id, attempts: token, parent: link }, delayMs: 0, maxAttempts: 1, error }));
  }

  deliver(cid: string, result: string, pid: string): Promise<unknown> {
    return raw(t.flowDeliver({ parentQueue: this.k.queue, parentId: pid, childId: cid, result }));
  }

  failDeliver(cid: string, error: string, policy: string, pid: string): Promise<unknown> {
    return raw(t.flowFailDeliver({ parentQueue: this.k.queue, parentId: pid, childId: cid, error, policy: policy as Policy }));
  }

  deps(pid: string): Promise<string | null> {
    return cmd('GET', this.sub(pid, 'dependencies'));
  }

  inSet(set: string, id: string): Promise<boolean> {
    return cmd('ZSCORE', set, id).then((s) => s !== null);
  }
}

/**
 * The pump's sweep, by hand (queue.md §11.5): read the child queue's outbox, deliver each entry on
 * the parent's slot, stop at the first error, trim what was delivered. Returns the delivered count.
 */
export async function sweep(child: Q, parents: Record<string, Q>): Promise<number> {
  const entries = await cmd<string[]>('LRANGE', child.k.flowOutbox, 0, 99);
  let delivered = 0;
  for (const text of entries) {
    // The protocol's one reader of what complete, retry, sweep_stalled and flow_reemit write.
    const entry = parseOutboxEntry(text);
    if (entry === undefined) break;
    const parent = parents[entry.parentQueue] as Q;
    try {
      if (entry.kind === 'fail') await parent.failDeliver(entry.childId, entry.error, entry.policy, entry.parentId);
      else await parent.deliver(entry.childId, entry.result, entry.parentId);
    } catch {
      break;
    }
    delivered++;
  }
  await cmd('LTRIM', child.k.flowOutbox, delivered, -1);
  return delivered;
}

/** Two queue names whose hashtags land on different slots, so the flow really crosses slots. */
export function twoSlots(prefix: string): [Q, Q] {
  for (;;) {
    const a = new Q(uniqueName(prefix));
    const b = new Q(uniqueName(`${prefix}x`));
    if (slot(a.k.pending) !== slot(b.k.pending)) return [a, b];
  }
}
