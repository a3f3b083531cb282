/** Shared harness of the lane script tests: one strict connection and the lane verbs of a fresh queue. */
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { mintId, type BrandedId } from '../src/ids/index.js';
import { queueKeys, type QueueKeys } from '../src/keys/index.js';
import { scripts } from '../src/scripts/catalog.js';

/** One claimed lane job as the lane claims return it: {id, payload, attempts, g}. */
export type Entry = [string, string, number, string];

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

/** The lane verbs of one fresh queue, each a single script call with the catalog's key order. */
export class Lanes {
  readonly k: QueueKeys;

  constructor(prefix: string) {
    this.k = queueKeys(uniqueName(prefix));
  }

  cmd<T = unknown>(name: string, ...args: (string | number)[]): Promise<T> {
    return conn.command(name, ...args) as Promise<T>;
  }

  async add(g: BrandedId, payload = 'p', id: BrandedId = mintId('JOB')): Promise<string> {
    const k = this.k;
    const r = await conn.run(scripts().genqueue, [k.job(id), k.lane(g), k.ring, k.paused, k.glimit, k.gactive, k.wake], [id, payload, g]);
    expect(r).toBe(1);
    return id;
  }

  private claimKeys(): string[] {
    const k = this.k;
    return [k.ring, k.active, k.meta, k.gactive, k.glimit, k.jobRoot, k.laneRoot];
  }

  async claim(leaseMs = 30_000): Promise<Entry | []> {
    return (await conn.run(scripts().gclaim, this.claimKeys(), [leaseMs])) as Entry | [];
  }

  async wclaim(leaseMs = 30_000): Promise<Entry[]> {
    return (await conn.run(scripts().gwclaim, [...this.claimKeys(), this.k.gweight], [leaseMs])) as Entry[];
  }

  async bclaim(leaseMs = 30_000): Promise<Entry[]> {
    return (await conn.run(scripts().gbclaim, this.claimKeys(), [leaseMs])) as Entry[];
  }

  async complete(id: string, token: number | string): Promise<unknown> {
    const k = this.k;
    return conn.run(
      scripts().complete,
      [k.active, k.pending, k.schedule, k.dead, k.job(id as BrandedId), k.metricsCompleted, k.gactive, k.glimit, k.ring, k.wake, k.paused, k.laneRoot, k.jobRoot, k.events],
      [id, String(token), '', '', '', ''],
    );
  }

  weight(g: string, w: number): Promise<unknown> {
    return conn.run(scripts().gweight, [this.k.gweight], [g, w]);
  }

  pause(g: string): Promise<unknown> {
    return conn.run(scripts().gpause, [this.k.paused, this.k.ring], [g]);
  }

  resume(g: BrandedId): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().gresume, [k.paused, k.ring, k.glimit, k.gactive, k.wake, k.lane(g)], [g]);
  }

  limit(g: BrandedId, n: number): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().glimit, [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.lane(g)], [g, n]);
  }

  reassign(id: BrandedId, dst: BrandedId): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().greassign, [k.job(id), k.lane(dst), k.ring, k.paused, k.glimit, k.gactive, k.wake, k.laneRoot], [id, dst]);
  }

  drain(g: BrandedId): Promise<unknown> {
    return conn.run(scripts().gdrain, [this.k.lane(g), this.k.ring, this.k.jobRoot], [g]);
  }

  reapGroup(g: BrandedId, limit = 100): Promise<unknown> {
    const k = this.k;
    return conn.run(scripts().greap_group, [k.active, k.lane(g), k.gactive, k.glimit, k.ring, k.wake, k.paused, k.jobRoot], [g, limit]);
  }

  depths(...groups: string[]): Promise<number[]> {
    return conn.run(scripts().lane_counts, [this.k.laneRoot], groups) as Promise<number[]>;
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
