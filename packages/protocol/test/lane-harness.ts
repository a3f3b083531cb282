/** Shared harness of the lane script tests: one strict connection and the lane verbs of a fresh queue. */
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { mintId, type BrandedId } from '../src/ids/index.js';
import { queueKeys, type QueueKeys } from '../src/keys/index.js';
import * as t from '../src/transitions/index.js';
import type { Transition } from '../src/transitions/transition.js';

/** One claimed lane job as the lane claims return it: {id, payload, attempts, g}. */
export type Entry = [string, string, number, string];

/** The spec's four fields of a lane claim entry; the [TS] per-job option fields after them are the queue tests' concern. */
function spec(entry: unknown[]): unknown[] {
  return entry.slice(0, 4);
}

export let conn: Connection;

/** Opens the strict connection the lane tests share, for the file that calls it. */
export function useStrictConnection(): void {
  beforeAll(async () => {
  const server = await useRedis();
  // Strict: every script runs through the key-law checker, so an undeclared key fails the test.
  conn = await Connection.connect({ url: server.url, strictKeys: true });
  expect(conn.strictKeys).toBe(true);
  });
  afterAll(async () => {
    await conn.close();
  });
}

export { sleep } from '@echo/testkit';

/** Sends a typed transition and answers its raw reply, which the lane tests read literally. */
function raw(tr: Transition<unknown>): Promise<unknown> {
  return conn.run(tr.script, tr.keys, tr.args);
}

/** The lane verbs of one fresh queue, each a typed transition sent as it is. */
export class Lanes {
  readonly k: QueueKeys;

  constructor(prefix: string) {
    this.k = queueKeys(uniqueName(prefix));
  }

  cmd<T = unknown>(name: string, ...args: (string | number)[]): Promise<T> {
    return conn.command(name, ...args) as Promise<T>;
  }

  async add(g: BrandedId, payload = 'p', id: BrandedId = mintId('JOB')): Promise<string> {
    const r = await raw(t.laneEnqueue({ queue: this.k.queue, id, payload, group: g }));
    expect(r).toBe(1);
    return id;
  }

  async claim(leaseMs = 30_000): Promise<Entry | []> {
    return spec((await raw(t.laneClaim({ queue: this.k.queue, leaseMs }))) as unknown[]) as Entry | [];
  }

  async wclaim(leaseMs = 30_000): Promise<Entry[]> {
    return ((await raw(t.laneWeightedClaim({ queue: this.k.queue, leaseMs }))) as unknown[][]).map((e) => spec(e) as Entry);
  }

  async bclaim(leaseMs = 30_000): Promise<Entry[]> {
    return ((await raw(t.laneBatchClaim({ queue: this.k.queue, leaseMs }))) as unknown[][]).map((e) => spec(e) as Entry);
  }

  async complete(id: string, token: number | string): Promise<unknown> {
    return raw(t.complete({ queue: this.k.queue, job: { id, attempts: Number(token) } }));
  }

  weight(g: string, w: number): Promise<unknown> {
    return raw(t.laneWeight({ queue: this.k.queue, group: g, weight: w }));
  }

  pause(g: string): Promise<unknown> {
    return raw(t.lanePause({ queue: this.k.queue, group: g }));
  }

  resume(g: BrandedId): Promise<unknown> {
    return raw(t.laneResume({ queue: this.k.queue, group: g }));
  }

  limit(g: BrandedId, n: number): Promise<unknown> {
    return raw(t.laneLimit({ queue: this.k.queue, group: g, limit: n }));
  }

  rate(g: BrandedId, limit: t.LaneRateLimit | null): Promise<unknown> {
    return raw(t.laneRateLimit({ queue: this.k.queue, group: g, limit }));
  }

  reassign(id: BrandedId, dst: BrandedId): Promise<unknown> {
    return raw(t.laneReassign({ queue: this.k.queue, id, to: dst }));
  }

  drain(g: BrandedId): Promise<unknown> {
    return raw(t.laneDrain({ queue: this.k.queue, group: g }));
  }

  reapGroup(g: BrandedId, limit = 100): Promise<unknown> {
    return raw(t.reapGroup({ queue: this.k.queue, group: g, limit }));
  }

  depths(...groups: string[]): Promise<number[]> {
    return raw(t.laneCounts({ queue: this.k.queue, groups })) as Promise<number[]>;
  }

  /** `ZRANGE key 0 -1 WITHSCORES` as [member, score] pairs, whatever the reply protocol. */
  async zscores(key: string): Promise<[string, number][]> {
    const reply = await this.cmd<unknown[]>('ZRANGE', key, 0, -1, 'WITHSCORES');
    if (reply.length > 0 && Array.isArray(reply[0])) return (reply as [string, string | number][]).map(([m, s]) => [m, Number(s)]);
    const out: [string, number][] = [];
    for (let i = 0; i < reply.length; i += 2) out.push([reply[i] as string, Number(reply[i + 1])]);
    return out;
  }

  ring(): Promise<string[]> {
    return this.cmd('LRANGE', this.k.ring, 0, -1);
  }

  gactive(): Promise<Record<string, string>> {
    return this.hgetall(this.k.gactive);
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    const flat = await this.cmd<string[]>('HGETALL', key);
    const out: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
    return out;
  }

  row(id: string): Promise<Record<string, string>> {
    return this.hgetall(this.k.job(id as BrandedId));
  }

  /** Claims and completes everything left, one rotation at a time; returns how many jobs ran. */
  async drainAll(claim: () => Promise<Entry[]>): Promise<number> {
    let served = 0;
    for (;;) {
      const batch = await claim();
      if (batch.length === 0) return served;
      for (const [id, , token] of batch) expect(await this.complete(id, token)).toBe(1);
      served += batch.length;
    }
  }
}
