/**
 * Echo's keyed cache with its L2 stopped: `redis-server` is SIGSTOPped for STOP_MS under a steady
 * read load (CALLERS callers looping getOrSet over KEYS keys with a short TTL, so L2 is read all the
 * time), once with the outage mode off and once on. Reports p50/p99/max read latency and errors.
 *
 *   pnpm bench:cache-outage                 # 5 s stop, 3 s before and after
 *   pnpm bench:cache-outage --quick         # 1 s stop
 */
import { Cache } from '@echo/cache';
import { Connection } from '@echo/protocol';
import { startRedis } from '@echo/testkit';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt } from './lib/stats.js';

const quick = process.argv.includes('--quick') || boolOption('quick', false);
const STOP_MS = intOption('stop-ms', quick ? 1000 : 5000);
const AROUND_MS = intOption('around-ms', quick ? 1000 : 3000);
const CALLERS = intOption('callers', 20);
const KEYS = intOption('keys', 200);

interface Outcome {
  readonly reads: number;
  readonly errors: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly sources: string;
}

async function run(outage: boolean): Promise<Outcome> {
  const server = await startRedis();
  const connection = await Connection.connect({ url: server.url, reconnectWaitMs: 30_000 });
  const cache = await Cache.open({ connection });
  const ns = await cache.namespace<{ n: number }>({ name: 'outage', ttlMs: 100, graceMs: 60_000, ...(outage ? { outage: { l2TimeoutMs: 100, failures: 3, openMs: 1000 } } : {}) });
  const latencies: number[] = [];
  const sources = new Map<string, number>();
  let errors = 0;
  let stop = false;
  const loops = Array.from({ length: CALLERS }, async (_, c) => {
    let i = c;
    while (!stop) {
      const t = performance.now();
      try {
        const read = await ns.getOrSetEntry(`k${i++ % KEYS}`, () => ({ n: i }));
        sources.set(read.source, (sources.get(read.source) ?? 0) + 1);
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  });
  await new Promise((resolve) => setTimeout(resolve, AROUND_MS));
  progress(`outage mode ${outage ? 'on' : 'off'}: SIGSTOP for ${STOP_MS} ms`);
  process.kill(server.pid, 'SIGSTOP');
  await new Promise((resolve) => setTimeout(resolve, STOP_MS));
  process.kill(server.pid, 'SIGCONT');
  await new Promise((resolve) => setTimeout(resolve, AROUND_MS));
  stop = true;
  await Promise.all(loops);
  await cache.close();
  await connection.close();
  await server.stop();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? Number.NaN;
  return { reads: latencies.length, errors, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? Number.NaN, sources: [...sources].map(([s, n]) => `${s} ${n}`).join(', ') };
}

const off = await run(false);
const on = await run(true);
const rows = [off, on].map((o, i) => [i === 0 ? 'off' : 'on', String(o.reads), String(o.errors), fmt(o.p50), fmt(o.p99), fmt(o.max), o.sources]);
publish(
  'cache-outage-latest.md',
  [
    `# Echo keyed cache with redis-server SIGSTOPped for ${STOP_MS} ms`,
    '',
    `${CALLERS} callers, getOrSet over ${KEYS} keys (ttl 100 ms, grace 60 s), ${AROUND_MS} ms before and after the stop. Latency in ms.`,
    '',
    table(['outage mode', 'reads', 'errors', 'p50', 'p99', 'max', 'sources'], rows),
  ].join('\n'),
);
