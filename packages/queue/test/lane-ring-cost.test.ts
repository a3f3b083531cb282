import { startRedis } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../src/index.js';
import { until } from './worker-harness.js';

/** Mean server µs per `LREM` (INFO commandstats) while a lanes Worker drains `lanes` one-job lanes. */
async function lremMicros(queue: Queue<string>, lanes: number): Promise<number> {
  for (let i = 0; i < lanes; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, lanes - i) }, (_, j) => queue.enqueueInLane(`t${String(i + j)}`, 'x')));
  }
  await queue.connection.command('CONFIG', 'RESETSTAT');
  let done = 0;
  const worker = await Worker.start(queue, () => {
    done++;
  }, { source: 'lanes', concurrency: 8, maintenanceMs: 50, blockMs: 50 });
  try {
    await until(() => done === lanes, `${String(lanes)} lane jobs`, 60_000);
  } finally {
    await worker.close();
  }
  const stats = String(await queue.connection.command('INFO', 'commandstats'));
  const line = /cmdstat_lrem:calls=(\d+),usec=(\d+)/.exec(stats);
  // Every job empties its lane, so every claim takes its lane out of the ring.
  expect(Number(line?.[1])).toBeGreaterThanOrEqual(lanes);
  return Number(line?.[2]) / Number(line?.[1]);
}

describe('the lane ring at scale', () => {
  it('a lane leaving the ring costs the server about the same with 10,000 lanes in it as with 10', async () => {
    // A server of its own: commandstats must count these drains alone.
    const server = await startRedis();
    const wide = await Queue.open<string>('ring-wide', { connect: { host: server.host, port: server.port } });
    const narrow = await Queue.open<string>('ring-narrow', { connect: { host: server.host, port: server.port } });
    try {
      const small = await lremMicros(narrow, 10);
      const large = await lremMicros(wide, 10_000);
      // Scanning the whole ring (LREM 0 from the head) took tens of µs per call at 10,000 lanes; found
      // from the tail it stays a µs or two. Generous: a loaded machine slows both drains.
      expect(large).toBeLessThan(Math.max(8, 4 * small));
    } finally {
      await wide.close();
      await narrow.close();
      await server.stop();
    }
  }, 120_000);
});
