/**
 * `Leases.completedUnder`: after a completion's reply was lost and its resend heard `gone`, whether
 * the server holds that completion under this holder's token (its own first send landed) or another's.
 */
import { Connection } from '@echo/protocol/queue';
import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../src/index.js';

let conn: Connection;

beforeAll(async () => {
  conn = await Connection.connect({ url: (await useRedis()).url });
});
afterAll(async () => {
  await conn.close();
});

describe('Leases.completedUnder: whose completion the server holds', () => {
  it('reads a retained row: ours under our token, not under an older one, not while still active', async () => {
    const q = await Queue.open<string>(uniqueName('cu'), { connection: conn, keep: { completed: { count: 10 } } });
    const leases = q.leases();
    await q.enqueue('a');
    const job = await leases.claim(30_000);
    if (!job) throw new Error('nothing claimed');
    expect(await leases.completedUnder(job)).toBe(false);
    await leases.complete(job);
    expect(await leases.completedUnder(job)).toBe(true);
    // A holder of an earlier attempt (a lease that lapsed and was re-claimed) did not complete it.
    expect(await leases.completedUnder({ id: job.id, attempts: job.attempts - 1 })).toBe(false);
  });

  it('reads the recent completions when no row is kept: each entry carries the completing token', async () => {
    const q = await Queue.open<string>(uniqueName('cu'), { connection: conn });
    const leases = q.leases();
    await q.enqueue('a');
    const job = await leases.claim(30_000);
    if (!job) throw new Error('nothing claimed');
    await leases.complete(job);
    expect(await q.getJob(job.id)).toBeUndefined();
    expect(await leases.completedUnder(job)).toBe(true);
    expect(await leases.completedUnder({ id: job.id, attempts: job.attempts - 1 })).toBe(false);
  });

  it('cannot tell for a job in neither the rows nor the recent completions', async () => {
    const q = await Queue.open<string>(uniqueName('cu'), { connection: conn });
    const { id } = await q.enqueue('a');
    await q.remove(id);
    expect(await q.leases().completedUnder({ id, attempts: 1 })).toBeUndefined();
  });
});
