/**
 * Scale curve: many queues served by one process. 10, 100 and 1,000 queues opened on one shared
 * connection, a Worker (default options) started on each; then what each queue costs while idle:
 * connections and sockets held, Node and Redis CPU and server commands per second, and the
 * time to hand one job to every queue at once (each worker's pickup, all together).
 *
 *   pnpm bench:scale-queues                        # 10 / 100 / 1,000 queues, 3 rounds, 5 s idle
 *   pnpm bench:scale-queues --large 200 --idle-ms 2000 --rounds 1
 */
import { Redis } from 'ioredis';
import { Connection } from '@echo/protocol';
import { Queue, Worker } from '@echo/queue';
import { startRedis } from '@echo/testkit';
import { intOption } from './lib/options.js';
import { runCurve } from './lib/scale.js';
import { waitUntil } from './lib/stats.js';

const LARGE = intOption('large', 1_000);
const ROUNDS = intOption('rounds', 3);
const IDLE_MS = intOption('idle-ms', 5_000);
const SIZES = [10, 100, LARGE].filter((n, i, all) => n <= LARGE && all.indexOf(n) === i);
const WAVE = 50;

const server = await startRedis({ args: ['--maxclients', '20000'] });
const side = new Redis(server.url);

async function serverFigures(): Promise<{ cpuUs: number; calls: number; clients: number }> {
  const [cpu, stats, clients] = await Promise.all([side.info('cpu'), side.info('commandstats'), side.info('clients')]);
  const field = (text: string, name: string): number => Number(new RegExp(`${name}:([0-9.]+)`).exec(text)?.[1] ?? 0);
  let calls = 0;
  for (const m of stats.matchAll(/cmdstat_([a-z|_-]+):calls=(\d+)/g)) if (m[1] !== 'info') calls += Number(m[2]);
  return { cpuUs: (field(cpu, 'used_cpu_user') + field(cpu, 'used_cpu_sys')) * 1e6, calls, clients: field(clients, 'connected_clients') };
}

/** Sockets this process holds (`process.getActiveResourcesInfo`; the workers' timers are unref'd, so not listed there). */
function resources(): { sockets: number } {
  return { sockets: process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length };
}

async function measure(count: number, round: number): Promise<Record<string, number>> {
  await side.call('FLUSHALL', 'SYNC');
  const before = await serverFigures();
  const held = resources();
  const connection = await Connection.connect({ url: server.url, evictionPolicy: 'allow' });
  const queues: Queue<{ q: number }>[] = [];
  const workers: Worker<{ q: number }>[] = [];
  let handled = 0;
  try {
    const t0 = performance.now();
    for (let i = 0; i < count; i += WAVE) {
      const wave = await Promise.all(
        Array.from({ length: Math.min(WAVE, count - i) }, async (_, j) => {
          const queue = await Queue.open<{ q: number }>(`q${round}-${i + j}`, { connection });
          return { queue, worker: await Worker.start(queue, () => {
            handled++;
          }) };
        }),
      );
      for (const w of wave) {
        queues.push(w.queue);
        workers.push(w.worker);
      }
    }
    const startMs = performance.now() - t0;
    // Let every worker park on its wake read before the idle window opens.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const busy = resources();
    const s0 = await serverFigures();
    const c0 = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const c1 = process.cpuUsage(c0);
    const s1 = await serverFigures();
    const perQueueSecond = (v: number): number => v / count / (IDLE_MS / 1000);
    const t1 = performance.now();
    await Promise.all(queues.map((queue, q) => queue.enqueue({ q })));
    await waitUntil(() => handled >= count, 120_000, `a job picked up by each of ${count} workers`);
    const pickupMs = performance.now() - t1;
    return {
      'start ms/queue': startMs / count,
      'connections/queue': (s0.clients - before.clients) / count,
      'sockets/queue': (busy.sockets - held.sockets) / count,
      'idle Node µs/queue/s': perQueueSecond(c1.user + c1.system),
      'idle Redis µs/queue/s': perQueueSecond(s1.cpuUs - s0.cpuUs),
      'idle commands/queue/s': perQueueSecond(s1.calls - s0.calls - 1),
      'pickup, all queues at once, ms/queue': pickupMs / count,
    };
  } finally {
    for (let i = 0; i < workers.length; i += WAVE) await Promise.all(workers.slice(i, i + WAVE).map((w) => w.close()));
    await Promise.all(queues.map((q) => q.close()));
    await connection.close();
  }
}

try {
  await runCurve({
    title: `Scale curve: ${LARGE.toLocaleString('en-US')} queues served by one process`,
    file: 'scale-queues.md',
    dimension: 'queues',
    sizes: SIZES,
    rounds: ROUNDS,
    figures: [
      { name: 'start ms/queue', higherIsBetter: false },
      { name: 'connections/queue', higherIsBetter: false },
      { name: 'sockets/queue', higherIsBetter: false },
      { name: 'idle Node µs/queue/s', higherIsBetter: false },
      { name: 'idle Redis µs/queue/s', higherIsBetter: false },
      { name: 'idle commands/queue/s', higherIsBetter: false },
      { name: 'pickup, all queues at once, ms/queue', higherIsBetter: false },
    ],
    headline: 'idle Node µs/queue/s',
    method: [
      `the queues share one Connection; a Worker with default options (concurrency 1, blockMs 1000, maintenanceMs 1000) on each, started ${WAVE} at a time`,
      `idle: ${IDLE_MS} ms with nothing to do, from 500 ms after the last start; Node CPU (process.cpuUsage), Redis CPU (INFO cpu) and commands (INFO commandstats) per queue per second`,
      'connections: the server\'s connected_clients over the run\'s start, per queue; sockets: process.getActiveResourcesInfo() TCP handles over the start, per queue (the workers\' timers are unref\'d and not listed there)',
      'pickup: one job enqueued into every queue at once, time until every worker ran its job, per queue',
    ],
    measure,
  });
} finally {
  side.disconnect();
  await server.stop();
}
