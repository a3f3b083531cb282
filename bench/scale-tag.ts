/**
 * Scale curve: one cache tag over 1,000, 10,000 and 100,000 keys. Each round fills a namespace with
 * that many small entries all carrying one tag (untimed), then times `deleteByTag`: wall ms and
 * Redis CPU per key, and memory: the tag hash's bytes per key (MEMORY USAGE) and the Node heap the
 * call grew. The delete's server side is one script: its Redis CPU is about how long it holds the server.
 *
 *   pnpm bench:scale-tag                         # 1k / 10k / 100k keys, 3 rounds
 *   pnpm bench:scale-tag --large 20000 --rounds 1
 */
import { Redis } from 'ioredis';
import { Cache } from '@echo/cache';
import { startRedis } from '@echo/testkit';
import { metered } from './lib/cpu-meter.js';
import { intOption } from './lib/options.js';
import { runCurve } from './lib/scale.js';

const LARGE = intOption('large', 100_000);
const ROUNDS = intOption('rounds', 3);
const SIZES = [1_000, 10_000, LARGE].filter((n, i, all) => n <= LARGE && all.indexOf(n) === i);
const INFLIGHT = 200;
const VALUE = { name: 'x'.repeat(32), n: 1 };

const server = await startRedis();
const side = new Redis(server.url);
const cache = await Cache.open({ connect: { url: server.url, evictionPolicy: 'allow' } });

async function measure(keys: number, round: number): Promise<Record<string, number>> {
  await side.call('FLUSHALL', 'SYNC');
  const name = `tag${round}x${keys}`;
  // No L1: the bench measures the server's tag, not this process's memory of the values.
  const ns = await cache.namespace<typeof VALUE>({ name, ttlMs: 3_600_000, l1: false });
  const memBefore = Number((/used_memory:(\d+)/.exec(await side.info('memory')) ?? [])[1]);
  for (let next = 0; next < keys; ) {
    const wave: Promise<unknown>[] = [];
    for (; next < keys && wave.length < INFLIGHT; next++) wave.push(ns.set(`k${next}`, VALUE, { tags: ['big'] }));
    await Promise.all(wave);
  }
  const memAfter = Number((/used_memory:(\d+)/.exec(await side.info('memory')) ?? [])[1]);
  const tagBytes = Number(await side.call('MEMORY', 'USAGE', `ecc:{${name}}:tag:big`, 'SAMPLES', '0'));
  global.gc?.();
  const heap = process.memoryUsage().heapUsed;
  const cost = await metered(side, async () => {
    await ns.deleteByTag('big');
    return keys;
  });
  const heapGrew = process.memoryUsage().heapUsed - heap;
  if (await side.exists(`ecc:{${name}}:k:k0`)) throw new Error(`deleteByTag left k0 of ${keys} keys`);
  return {
    'deleteByTag µs/key': 1e6 / cost.opsPerSec,
    'Redis µs/key': cost.redisUs,
    'tag bytes/key': tagBytes / keys,
    'used_memory bytes/key (entry + tag)': (memAfter - memBefore) / keys,
    'Node heap grown, bytes/key': Math.max(0, heapGrew) / keys,
    'deleteByTag ms per call': (keys / cost.opsPerSec) * 1000,
    'Redis CPU ms per call': (cost.redisUs * keys) / 1000,
  };
}

try {
  await runCurve({
    title: `Scale curve: one cache tag over ${LARGE.toLocaleString('en-US')} keys`,
    file: 'scale-tag.md',
    dimension: 'keys',
    sizes: SIZES,
    rounds: ROUNDS,
    figures: [
      { name: 'deleteByTag µs/key', higherIsBetter: false },
      { name: 'Redis µs/key', higherIsBetter: false },
      { name: 'tag bytes/key', higherIsBetter: false },
      { name: 'used_memory bytes/key (entry + tag)', higherIsBetter: false },
      { name: 'Node heap grown, bytes/key', higherIsBetter: false },
      { name: 'deleteByTag ms per call', higherIsBetter: false },
      { name: 'Redis CPU ms per call', higherIsBetter: false },
    ],
    headline: 'deleteByTag µs/key',
    method: [
      `a keyed namespace with l1: false; the keys set with tags ['big'] (${INFLIGHT} in flight, not timed), a ~50-byte JSON value each`,
      'deleteByTag timed once per round; Redis CPU from INFO cpu; tag bytes from MEMORY USAGE … SAMPLES 0 of the tag hash; used_memory delta over the fill; Node heap grown over the call (after a GC when run with --expose-gc)',
      'the last two columns are per call, not per key: the script is atomic, so its Redis CPU per call is about how long it holds the server',
    ],
    measure,
  });
} finally {
  await cache.close();
  side.disconnect();
  await server.stop();
}
