import { startRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

/**
 * Mean server µs per `LREM` and per `LPOS` (INFO commandstats) while a lanes Worker drains `lanes`
 * lanes of two jobs each: the first job's completion finds its lane still in the ring (`LPOS`), the
 * second's claim empties the lane and takes it out (`LREM`).
 */
async function ringMicros(queue: Queue<string>, lanes: number): Promise<{ lrem: number; lpos: number }> {
  for (let i = 0; i < 2 * lanes; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, 2 * lanes - i) }, (_, j) => queue.enqueueInLane(`t${String((i + j) % lanes)}`, 'x')));
  }
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
  const stats = String(await queue.connection.command('INFO', 'commandstats'));
  const perCall = (command: string): number => {
    const line = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(stats);
    // Each lane is emptied once; a first completion finds its lane still in the ring unless its
    // second job was claimed before it settled.
    expect(Number(line?.[1])).toBeGreaterThan(0);
    return Number(line?.[2]) / Number(line?.[1]);
  };
  return { lrem: perCall('lrem'), lpos: perCall('lpos') };
}

describe('the lane ring at scale', () => {
  it('a lane leaving the ring, or found in it, costs the server about the same with 5,000 lanes as with 10', async () => {
    // A server of its own: commandstats must count these drains alone.
    const server = await startRedis();
    const wide = await Queue.open<string>('ring-wide', { connect: { host: server.host, port: server.port } });
    const narrow = await Queue.open<string>('ring-narrow', { connect: { host: server.host, port: server.port } });
    try {
      const small = await ringMicros(narrow, 10);
      const large = await ringMicros(wide, 5_000);
      // Walking the whole ring from the head took 130-600 µs per call at 5,000 lanes; looked for from
      // the tail it is a few µs. Generous: on a loaded machine a preempted server inflates the mean.
      expect(large.lrem).toBeLessThan(Math.max(40, 10 * small.lrem));
      expect(large.lpos).toBeLessThan(Math.max(40, 10 * small.lpos));
    } finally {
      await wide.close();
      await narrow.close();
      await server.stop();
    }
  }, 120_000);
});
