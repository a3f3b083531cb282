/**
 * Scale curve: a long stream with a consumer group far behind. Streams of 100,000 and 1,000,000
 * entries (`--full`: 10,000,000), each filled once; every round opens a new group at the head (the
 * whole stream behind it), consumes the first `CONSUME` entries (`consume`, reads of 100, acks),
 * then times `lag()` of that group, now far from both ends. Consume rate and CPU per entry, and
 * `lag()` time, should not depend on how much is behind.
 *
 *   pnpm bench:scale-stream                       # 100k vs 1M entries, 3 rounds
 *   pnpm bench:scale-stream --full                # 100k vs 10M entries (about 2 minutes to fill)
 *   pnpm bench:scale-stream --small 20000 --large 200000 --consume 5000 --rounds 1
 */
import { Redis } from 'ioredis';
import { Bus, type GroupConsumer } from '@echo/bus';
import { startRedis } from '@echo/testkit';
import { metered } from './lib/cpu-meter.js';
import { boolOption, intOption } from './lib/options.js';
import { progress } from './lib/report.js';
import { runCurve } from './lib/scale.js';
import { waitUntil } from './lib/stats.js';

const FULL = boolOption('full', false);
const SMALL = intOption('small', 100_000);
const LARGE = intOption('large', FULL ? 10_000_000 : 1_000_000);
const CONSUME = intOption('consume', Math.min(50_000, Math.floor(SMALL / 2)));
const ROUNDS = intOption('rounds', 3);
const LAG_CALLS = intOption('lag-calls', 20);
const BATCH = 1000;
const FILL_INFLIGHT = 8;

const server = await startRedis();
const side = new Redis(server.url);
const bus = await Bus.open('scale', { connect: { url: server.url, evictionPolicy: 'allow' } });

/** Appends `n` small records to the stream named for `n`, in batches of 1000, 8 in flight. */
async function fill(n: number): Promise<void> {
  const stream = bus.stream(`s${n}`);
  const t = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) {
      const size = Math.min(BATCH, n - next);
      next += size;
      await stream.appendBatch(Array.from({ length: size }, () => ({ v: 'abcdefgh' })));
    }
  };
  await Promise.all(Array.from({ length: FILL_INFLIGHT }, lane));
  progress(`filled ${n.toLocaleString('en-US')} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

async function measure(n: number, round: number): Promise<Record<string, number>> {
  const stream = bus.stream(`s${n}`);
  const group = `g${round}`;
  let consumer: GroupConsumer | undefined;
  const cost = await metered(side, async () => {
    consumer = await stream.consume(group, () => undefined, { start: 'head', consumer: 'c', count: 100 });
    const c = consumer;
    // Polled every 5 ms: the poll's timers are this process's CPU too.
    await waitUntil(() => c.stats().acked >= CONSUME, 300_000, `${CONSUME} entries consumed`);
    return CONSUME;
  });
  await consumer?.close();
  const lagMs: number[] = [];
  let undelivered: number | null = null;
  for (let i = 0; i < LAG_CALLS; i++) {
    const t = performance.now();
    const [lag] = await stream.lag(group);
    lagMs.push(performance.now() - t);
    undelivered = lag?.undelivered ?? null;
  }
  lagMs.sort((a, b) => a - b);
  if (undelivered === null || undelivered < n - CONSUME - 1000) progress(`note: lag() of ${group} on ${n} entries answered undelivered ${String(undelivered)}`);
  await stream.deleteGroup(group);
  return { 'consume entries/s': cost.opsPerSec, 'Node µs/entry': cost.nodeUs, 'Redis µs/entry': cost.redisUs, 'lag() ms, median': lagMs[Math.floor(lagMs.length / 2)] ?? Number.NaN };
}

try {
  await fill(SMALL);
  await fill(LARGE);
  const memory = Number(await side.call('MEMORY', 'USAGE', bus.stream(`s${LARGE}`).key, 'SAMPLES', '0'));
  await runCurve({
    title: `Scale curve: a stream of ${LARGE.toLocaleString('en-US')} entries with a group far behind`,
    file: 'scale-stream.md',
    dimension: 'entries',
    sizes: [SMALL, LARGE],
    rounds: ROUNDS,
    figures: [
      { name: 'consume entries/s', higherIsBetter: true },
      { name: 'Node µs/entry', higherIsBetter: false },
      { name: 'Redis µs/entry', higherIsBetter: false },
      { name: 'lag() ms, median', higherIsBetter: false },
    ],
    headline: 'consume entries/s',
    method: [
      `each stream filled once with appendBatch (${BATCH} a batch, ${FILL_INFLIGHT} in flight; one 8-byte field); the large one holds ${(memory / LARGE).toFixed(1)} B per entry (MEMORY USAGE … SAMPLES 0)`,
      `each round: a new group at the head (everything behind it), consume(count 100) until ${CONSUME.toLocaleString('en-US')} entries are acked (Node CPU process.cpuUsage, Redis CPU INFO cpu, per entry), then lag() of that group ${LAG_CALLS} times (median wall time), then deleteGroup`,
    ],
    measure,
  });
} finally {
  await bus.close();
  side.disconnect();
  await server.stop();
}
