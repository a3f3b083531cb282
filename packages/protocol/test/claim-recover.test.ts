import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { InvalidArgumentError } from '../src/errors/validation.js';
import { mintId, type JobId } from '../src/ids/index.js';
import { queueKeys } from '../src/keys/index.js';
import * as t from '../src/transitions/index.js';
import { execute } from '../src/transitions/transition.js';

let conn: Connection;

beforeAll(async () => {
  const server = await useRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
});
afterAll(async () => {
  await conn.close();
});

async function admit(queue: string, n: number): Promise<JobId[]> {
  const ids: JobId[] = [];
  for (let i = 0; i < n; i++) {
    const id = mintId('JOB') as JobId;
    await execute(conn, t.enqueue({ queue, id, payload: `p${i}` }));
    ids.push(id);
  }
  return ids;
}

const LEASE = 30_000;
/** What Leases adds to a recovery read's window. */
const SLACK = 10_000;

describe('claim tickets and claim_recover [TS]', () => {
  it('finds what a ticketed claim leased, with its token and lease left, and nothing for another ticket', async () => {
    const queue = uniqueName('tickets');
    const ids = await admit(queue, 3);
    const sent = Date.now();
    const one = await execute(conn, t.claim({ queue, leaseMs: LEASE, ticket: 'w1.1' }));
    const batch = await execute(conn, t.claimBatch({ queue, leaseMs: LEASE, size: 2, ticket: 'w1.2' }));
    expect(one?.id).toBe(ids[0]);
    expect(batch.map((r) => r.id)).toEqual(ids.slice(1));
    // The window's slack covers a recovery read that runs well after its window was measured.
    const since = Date.now() - sent + SLACK;
    const first = await execute(conn, t.recoverClaims({ queue, ticket: 'w1.1', sinceMs: since, leaseMs: LEASE }));
    expect(first.map((r) => [r.id, r.payload, r.attempts, r.group, r.parent])).toEqual([[ids[0], 'p0', 1, undefined, undefined]]);
    // The claim and the read both ran between `sent` and now: the lease lost at most that span.
    expect(first[0]?.leftMs).toBeGreaterThanOrEqual(LEASE - (Date.now() - sent));
    expect(first[0]?.leftMs).toBeLessThanOrEqual(LEASE);
    const second = await execute(conn, t.recoverClaims({ queue, ticket: 'w1.2', sinceMs: since, leaseMs: LEASE }));
    expect(second.map((r) => r.id).sort()).toEqual(ids.slice(1).sort());
    expect(await execute(conn, t.recoverClaims({ queue, ticket: 'w2.1', sinceMs: since, leaseMs: LEASE }))).toEqual([]);
    // The ticket rides in the write that mints the token: the row says which claim leased it.
    expect(await conn.command('HGET', queueKeys(queue).job(ids[0] as JobId), 'claim_ticket')).toBe('w1.1@1');
  });

  it('answers nothing for a job settled or re-claimed since, nor for a claim older than the window', async () => {
    const queue = uniqueName('tickets');
    const [a, b] = await admit(queue, 2);
    const sent = Date.now();
    const claimed = await execute(conn, t.claimBatch({ queue, leaseMs: LEASE, size: 2, ticket: 'w1.7' }));
    expect(claimed).toHaveLength(2);
    const [ca, cb] = claimed as [t.ClaimedRow, t.ClaimedRow];
    await execute(conn, t.complete({ queue, job: { id: ca.id, attempts: ca.attempts } }));
    // b is reaped and claimed again by a claim without a ticket (another runtime): its token moved on.
    await execute(conn, t.retry({ queue, job: { id: cb.id, attempts: cb.attempts }, delayMs: 0, maxAttempts: 5, error: 'x' }));
    // The ticket leaves with the lease: a settled row carries the spec's fields only.
    expect(await conn.command('HGET', queueKeys(queue).job(cb.id), 'claim_ticket')).toBeNull();
    await execute(conn, t.promote({ queue, limit: 10 }));
    const again = await execute(conn, t.claim({ queue, leaseMs: LEASE }));
    expect(again?.id).toBe(b);
    expect(await execute(conn, t.recoverClaims({ queue, ticket: 'w1.7', sinceMs: Date.now() - sent + SLACK, leaseMs: LEASE }))).toEqual([]);
    expect(a).toBeDefined();
    // A window that starts after the claim ran leaves it out: the script reads only fresher deadlines.
    const [c] = await admit(queue, 1);
    await execute(conn, t.claim({ queue, leaseMs: LEASE, ticket: 'w1.8' }));
    expect(c).toBeDefined();
    expect(await execute(conn, t.recoverClaims({ queue, ticket: 'w1.8', sinceMs: 0, leaseMs: LEASE + 60_000 }))).toEqual([]);
  });

  it('covers the fused round and the lane claims, and answers the lane', async () => {
    const queue = uniqueName('tickets');
    const [a] = await admit(queue, 1);
    const sent = Date.now();
    const round = await execute(conn, t.completeAndClaim({ queue, jobs: [], size: 1, leaseMs: LEASE, ticket: 'w3.1' }));
    expect(round.claimed.map((r) => r.id)).toEqual([a]);
    const g = mintId('PRT');
    const lane = mintId('JOB') as JobId;
    await execute(conn, t.laneEnqueue({ queue, id: lane, payload: 'l', group: g }));
    const claimed = await execute(conn, t.laneBatchClaim({ queue, leaseMs: LEASE, ticket: 'w3.2' }));
    expect(claimed.map((r) => r.id)).toEqual([lane]);
    const since = Date.now() - sent + SLACK;
    expect((await execute(conn, t.recoverClaims({ queue, ticket: 'w3.1', sinceMs: since, leaseMs: LEASE }))).map((r) => r.id)).toEqual([a]);
    const lanes = await execute(conn, t.recoverClaims({ queue, ticket: 'w3.2', sinceMs: since, leaseMs: LEASE }));
    expect(lanes.map((r) => [r.id, r.group, r.payload])).toEqual([[lane, g, 'l']]);
  });

  it('refuses a malformed ticket before sending anything', () => {
    expect(() => t.claim({ queue: 'q', leaseMs: 1, ticket: 'a b' })).toThrow(InvalidArgumentError);
    expect(() => t.recoverClaims({ queue: 'q', ticket: '', sinceMs: 0, leaseMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => t.claimBatch({ queue: 'q', leaseMs: 1, size: 1, ticket: 'x'.repeat(65) })).toThrow(InvalidArgumentError);
  });
});
