/**
 * One process of the cache stampede row: opens either Echo's keyed namespace or a BentoCache (L1 +
 * Redis L2 + Redis bus) on BENCH_URL, prints `ready`, then for each stdin line `<key>` runs
 * BENCH_CALLERS concurrent getOrSet of that key with a BENCH_LOADER_MS loader that RPUSHes to
 * BENCH_RUNS_KEY, and answers `{"start":…,"end":…}` (Unix ms).
 */
import { Connection } from '@echo/protocol';
import { Cache } from '@echo/cache';
import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import { Redis } from 'ioredis';
import { createInterface } from 'node:readline';

const url = new URL(process.env.BENCH_URL ?? 'redis://127.0.0.1:6379');
const system = process.env.BENCH_SYSTEM ?? 'echo';
const callers = Number(process.env.BENCH_CALLERS ?? 100);
const loaderMs = Number(process.env.BENCH_LOADER_MS ?? 200);
const runsKey = process.env.BENCH_RUNS_KEY ?? 'bench:runs';
const ns = process.env.BENCH_NS ?? 'stampede';
const side = new Redis({ host: url.hostname, port: Number(url.port) });
process.stdin.on('end', () => process.exit(0));

const loader = async (): Promise<string> => {
  await side.rpush(runsKey, String(process.pid));
  await new Promise((resolve) => setTimeout(resolve, loaderMs));
  return 'value';
};

let getOrSet: (key: string) => Promise<unknown>;
if (system === 'echo') {
  const connection = await Connection.connect(url.href);
  const namespace = await (await Cache.open({ connection })).namespace<string>({ name: ns });
  getOrSet = (key) => namespace.getOrSet(key, loader);
} else {
  const connection = { host: url.hostname, port: Number(url.port) };
  const bento = new BentoCache({
    default: 'c',
    stores: { c: bentostore().useL1Layer(memoryDriver({ maxItems: 10_000, serialize: false })).useL2Layer(redisDriver({ connection })).useBus(redisBusDriver({ connection })) },
  });
  const space = bento.namespace(ns);
  getOrSet = (key) => space.getOrSet({ key, factory: loader, ttl: 60_000 });
}
process.stdout.write('ready\n');
for await (const key of createInterface({ input: process.stdin })) {
  const start = Date.now();
  await Promise.all(Array.from({ length: callers }, () => getOrSet(key)));
  process.stdout.write(`${JSON.stringify({ start, end: Date.now() })}\n`);
}
