/**
 * `Leases.completedUnder`: after a completion's reply was lost and its resend heard `gone`, whether
 * the server holds that completion under this holder's token (its own first send landed) or another's.
 */
import { Connection } from '@echo/protocol';
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

  it('cannot tell from the recent completions, whose entries do not carry the token', async () => {
    const q = await Queue.open<string>(uniqueName('cu'), { connection: conn });
    const leases = q.leases();
    await q.enqueue('a');
    const job = await leases.claim(30_000);
    if (!job) throw new Error('nothing claimed');
    await leases.complete(job);
    expect(await leases.completedUnder(job)).toBeUndefined();
  });
});
