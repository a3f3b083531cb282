import { startRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

/** `INFO commandstats` as command → { calls, usec }. */
async function commandStats(queue: Queue<string>): Promise<Map<string, { calls: number; usec: number }>> {
  const stats = String(await queue.connection.command('INFO', 'commandstats'));
  const out = new Map<string, { calls: number; usec: number }>();
  for (const m of stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)/g)) out.set(m[1] as string, { calls: Number(m[2]), usec: Number(m[3]) });
  return out;
}

/**
 * Admits `lanes` lanes of two jobs each (round-robin, so the second lap lands in lanes already in
 * the ring) and drains them with a lanes Worker: the first job's completion leaves its lane in the
 * ring, the second's claim empties the lane and takes it out (`LREM`). Answers the server's
 * `LPOS` calls over the admission and over the drain, and its mean µs per `LREM` over the drain.
 */
async function ringWork(queue: Queue<string>, lanes: number): Promise<{ lposAdmitting: number; lposDraining: number; lrem: number }> {
  await queue.connection.command('CONFIG', 'RESETSTAT');
  for (let i = 0; i < 2 * lanes; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, 2 * lanes - i) }, (_, j) => queue.enqueueInLane(`t${String((i + j) % lanes)}`, 'x')));
  }
  const lposAdmitting = (await commandStats(queue)).get('lpos')?.calls ?? 0;
  await queue.connection.command('CONFIG', 'RESETSTAT');
  let done = 0;
  const worker = await Worker.start(queue, () => {
    done++;
  }, { source: 'lanes', concurrency: 8, maintenanceMs: 50, blockMs: 50 });
  try {
    await until(() => done === 2 * lanes, `${String(2 * lanes)} lane jobs`, 90_000);
  } finally {
    await worker.close();
  }
  const stats = await commandStats(queue);
  // Each lane is emptied once, so every drain takes lanes out of the ring.
  const lrem = stats.get('lrem');
  expect(lrem?.calls).toBeGreaterThan(0);
  return { lposAdmitting, lposDraining: stats.get('lpos')?.calls ?? 0, lrem: (lrem?.usec ?? 0) / (lrem?.calls ?? 1) };
}

describe('the lane ring at scale', () => {
  it('a lane joining the ring is never searched for, and one leaving it costs the server about the same with 5,000 lanes as with 10', async () => {
    // A server of its own: commandstats must count these runs alone.
    const server = await startRedis();
    const wide = await Queue.open<string>('ring-wide', { connect: { host: server.host, port: server.port } });
    const narrow = await Queue.open<string>('ring-narrow', { connect: { host: server.host, port: server.port } });
    try {
      const small = await ringWork(narrow, 10);
      const large = await ringWork(wide, 5_000);
      // The re-ring knows from its own change whether the lane was in the ring (I6): an `LPOS`
      // walked the ring from the tail, 200 µs per admission at 10,000 lanes.
      expect([small.lposAdmitting, small.lposDraining, large.lposAdmitting, large.lposDraining]).toEqual([0, 0, 0, 0]);
      // Walking the whole ring from the head took 130-600 µs per `LREM` at 5,000 lanes; looked for
      // from the tail it is a few µs. Generous: on a loaded machine a preempted server inflates the mean.
      expect(large.lrem).toBeLessThan(Math.max(40, 10 * small.lrem));
    } finally {
      await wide.close();
      await narrow.close();
      await server.stop();
    }
  }, 120_000);
});
