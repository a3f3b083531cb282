/**
 * A soak across the three pillars on one `redis-server`: for `--seconds` a steady mixed workload runs
 * (queue jobs with retries, delays and flows; bus appends consumed by a consumer group, some entries
 * retried; keyed cache fills, reads, writes, deletes and tag deletes from two processes' worth of
 * caches), while Node's heap (after a full GC) and Redis' `used_memory` are sampled. Then production
 * stops and the run is judged:
 *
 * - every job terminal (completed, none dead, no row left) and every appended entry acked by the group
 *   (nothing pending or undelivered, no dead letter);
 * - every key left is one `parseKey` knows, and no job sub-key (the attempt history included: the
 *   queue records it during the run) outlives its row except the known flow residue (a completed flow parent's `:processed` and `:dependencies`, which the protocol keeps);
 * - the memory slopes after warm-up (20 s, at most half the run), least squares, per minute, under
 *   their limits (Redis' net of the measured flow residue);
 * - once everything is closed, no timer, socket or child process beyond those alive at start, and the
 *   process exits by itself (a watchdog that does not hold the loop open reports a hang).
 *
 * Exits 1 on any violation.
 *
 *   pnpm bench:soak                          # 60 s
 *   pnpm bench:soak --seconds 600            # the nightly-style ten-minute run
 *   pnpm bench:soak --seconds 20 --sample-ms 1000   # a smoke run
 */
import { Bus, type GroupConsumer } from '@echo/bus';
import { Cache, type Namespace } from '@echo/cache';
import { Connection } from '@echo/protocol';
import { fixed, Queue, Worker } from '@echo/queue';
import { sleep, startRedis } from '@echo/testkit';
import { intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { auditKeyspace, fullGc, handlesBeyond, liveHandles, slopePerMinute, usedMemory, type Point } from './lib/soak-audit.js';

const SECONDS = intOption('seconds', 60);
const SAMPLE_MS = intOption('sample-ms', Math.max(2_000, Math.round((SECONDS * 1000) / 30)));
const TICK_MS = intOption('tick-ms', 50);
const CACHE_KEYS = intOption('cache-keys', 500);
/** Limits, per minute after warm-up: a leak of 100 B of heap per job would be about 1.5 MB a minute here. */
const HEAP_LIMIT_KB = intOption('heap-limit-kb', 1_500);
const REDIS_LIMIT_KB = intOption('redis-limit-kb', 300);
const DRAIN_S = intOption('drain-s', 90);
/** Samples before this are warm-up (JIT, pools, L1s and logs filling to their bounds); at most half the run. */
const WARMUP_S = intOption('warmup-s', 20, 0);

type Kind = 'plain' | 'retry' | 'delayed' | 'parent' | 'child';
interface CacheValue {
  readonly key: string;
  readonly n: number;
}

const baseline = liveHandles();

/**
 * Handles beyond the start once the loop has turned for up to 2 s: a file request the server's
 * stop issued may still be finishing; a timer or socket that stays is a leak.
 */
async function settledHandles(): Promise<string[]> {
  const until = Date.now() + 2_000;
  for (;;) {
    const extra = handlesBeyond(baseline);
    if (extra.length === 0 || Date.now() >= until) return extra;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
const gc = fullGc();
const violations: string[] = [];
const check = (ok: boolean, what: string): void => {
  if (!ok) violations.push(what);
};

async function main(): Promise<void> {
  const server = await startRedis();
  const conn = await Connection.connect(server.url);
  const peerConn = await Connection.connect(server.url);

  // Queue: plain jobs, jobs that fail their first attempt, delayed jobs, flows of a parent and two children.
  const queue = await Queue.open<{ kind: Kind }>('soak', { connection: conn });
  // The operator's memory on: each job's attempt history must go with its row like every sub-key
  // (the keyspace audit below), and the per-minute counts stay within their window.
  await queue.setEvents({ history: 20, minutes: 180 });
  const worker = await Worker.start(
    queue,
    async (job) => {
      if (job.payload.kind === 'retry' && job.attempts === 1) throw new Error('first attempt fails');
      await sleep(1);
    },
    { concurrency: 16, maxAttempts: 3, backoff: fixed(50), blockMs: 200, maintenanceMs: 100 },
  );

  // Bus: one stream, one group; every tenth entry asks for a redelivery on its first attempt.
  const bus = await Bus.open('soakbus', { connection: conn });
  const feed = bus.stream('feed');
  const consumer: GroupConsumer = await feed.consume(
    'soak-g',
    (entry) => (entry.payload.retry === '1' && entry.attempts === 1 ? { retryInMs: 50 } : undefined),
    { start: 'head', consumer: 'soak-1', concurrency: 4, minIdleMs: 200, beatMs: 100, maxDeliveries: 5 },
  );

  // Cache: two caches on two connections share a namespace, so every write reaches the other's L1 through the log.
  const caches = [await Cache.open({ connection: conn }), await Cache.open({ connection: peerConn })];
  const spaces: Namespace<CacheValue>[] = await Promise.all(caches.map((c) => c.namespace<CacheValue>({ name: 'soakc', ttlMs: 2_000, graceMs: 1_000, maxSize: 1_000, logMaxLen: 1_000 })));
  let factoryRuns = 0;
  const factory = async (key: string): Promise<CacheValue> => {
    factoryRuns++;
    await sleep(1);
    return { key, n: factoryRuns };
  };

  let produced = 0;
  let flows = 0;
  let appended = 0;
  let cacheOps = 0;
  let tagDeletes = 0;
  let tick = 0;
  const heap: Point[] = [];
  const redis: Point[] = [];
  const started = Date.now();
  let nextSample = started;
  progress(`soak: ${SECONDS} s, a sample every ${SAMPLE_MS} ms, redis on ${server.url}`);
  while (Date.now() - started < SECONDS * 1000) {
    const at = Date.now();
    tick++;
    await queue.enqueueMany(Array.from({ length: 8 }, () => ({ payload: { kind: 'plain' as const } })));
    await queue.enqueue({ kind: 'retry' });
    await queue.enqueue({ kind: 'delayed' }, { delayMs: 200 });
    await queue.addFlow({ parent: { payload: { kind: 'parent' } }, children: [{ payload: { kind: 'child' } }, { payload: { kind: 'child' } }] });
    produced += 13;
    flows++;
    await feed.appendBatch(Array.from({ length: 10 }, (_, i) => ({ n: String(appended + i), retry: i === 0 ? '1' : '0' })));
    appended += 10;
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      const key = `k${Math.floor(Math.random() * CACHE_KEYS)}`;
      const ns = spaces[i % 2] as Namespace<CacheValue>;
      ops.push(i < 15 ? ns.getOrSet(key, () => factory(key), { tags: [`t${Number(key.slice(1)) % 8}`] }) : ns.get(key));
    }
    const written = `k${Math.floor(Math.random() * CACHE_KEYS)}`;
    ops.push((spaces[tick % 2] as Namespace<CacheValue>).set(written, { key: written, n: -tick }, tick % 3 === 0 ? {} : { tags: ['written'] }));
    ops.push((spaces[(tick + 1) % 2] as Namespace<CacheValue>).delete(`k${Math.floor(Math.random() * CACHE_KEYS)}`));
    if (tick % 20 === 0) {
      ops.push((spaces[0] as Namespace<CacheValue>).deleteByTag(tick % 40 === 0 ? 'written' : `t${(tick / 20) % 8}`));
      tagDeletes++;
    }
    await Promise.all(ops);
    cacheOps += ops.length;
    // The log keeps what the group read a while ago: retention is part of a steady state.
    if (tick % 20 === 0) await feed.trim({ minid: at - 5_000 });
    if (at >= nextSample) {
      nextSample += SAMPLE_MS;
      gc();
      heap.push([at - started, process.memoryUsage().heapUsed]);
      redis.push([at - started, await usedMemory(conn)]);
      progress(`  ${Math.round((at - started) / 1000)} s: heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB, redis ${((redis.at(-1)?.[1] ?? 0) / 1e6).toFixed(2)} MB, produced ${produced}, appended ${appended}`);
    }
    await sleep(Math.max(0, TICK_MS - (Date.now() - at)));
  }
  const ranMs = Date.now() - started;

  // Drain: every job terminal, every entry acked.
  const drainStart = Date.now();
  let drained = false;
  for (;;) {
    const c = await queue.counts('pending', 'active', 'scheduled', 'completed', 'dead');
    const [lag] = await feed.lag('soak-g');
    if (c.pending + c.active + c.scheduled === 0 && c.completed + c.dead >= produced && lag?.pending === 0 && lag.undelivered === 0) {
      drained = true;
      break;
    }
    if (Date.now() - drainStart > DRAIN_S * 1000) break;
    await sleep(100);
  }
  const drainMs = Date.now() - drainStart;
  const counts = await queue.counts('pending', 'active', 'scheduled', 'completed', 'dead');
  const [lag] = await feed.lag('soak-g');
  const groupStats = consumer.stats();
  const workerStats = worker.stats();
  const cacheStats = spaces.map((ns) => ns.stats());
  const keys = await auditKeyspace(conn);

  await consumer.close();
  await worker.close();
  await queue.close();
  await bus.close();
  await Promise.all(caches.map((c) => c.close()));
  await conn.close();
  await peerConn.close();
  await server.stop();

  const warmupMs = Math.min(WARMUP_S * 1000, ranMs / 2);
  const warm = (points: readonly Point[]): Point[] => points.filter(([x]) => x >= warmupMs);
  const heapSlopeKb = slopePerMinute(warm(heap)) / 1e3;
  const redisSlopeKb = slopePerMinute(warm(redis)) / 1e3;
  const residueKbPerMin = keys.residueBytes / 1e3 / (ranMs / 60_000);
  const redisNetKb = redisSlopeKb - residueKbPerMin;

  check(drained, `not drained after ${DRAIN_S} s`);
  check(counts.completed === produced, `completed ${counts.completed} of ${produced} jobs`);
  check(counts.dead === 0, `${counts.dead} jobs dead`);
  check(keys.jobRows === 0, `${keys.jobRows} job rows left`);
  check(workerStats.lost === 0, `worker lost ${workerStats.lost}`);
  check(workerStats.retried >= flows, `only ${workerStats.retried} retries for ${flows} jobs that fail once`);
  check(lag?.pending === 0 && lag.undelivered === 0, `group lag ${JSON.stringify(lag)}`);
  check(groupStats.acked >= appended, `acked ${groupStats.acked} of ${appended} entries`);
  check(keys.deadLetterEntries === 0 && groupStats.deadLettered === 0, `${keys.deadLetterEntries} dead letters`);
  check(keys.strayCount === 0, `${keys.strayCount} keys parseKey does not know: ${keys.strays.join(', ')}`);
  const unexpected = Object.keys(keys.residue).filter((sub) => sub !== 'processed' && sub !== 'dependencies');
  check(unexpected.length === 0, `job sub-keys outlive their rows: ${unexpected.join(', ')}`);
  check((keys.residue.processed ?? 0) <= flows && (keys.residue.dependencies ?? 0) <= flows, `more flow residue than flows: ${JSON.stringify(keys.residue)}`);
  check(Math.abs(heapSlopeKb) < HEAP_LIMIT_KB, `heap slope ${heapSlopeKb.toFixed(0)} KB/min (limit ${HEAP_LIMIT_KB})`);
  check(Math.abs(redisNetKb) < REDIS_LIMIT_KB, `redis slope net of flow residue ${redisNetKb.toFixed(0)} KB/min (limit ${REDIS_LIMIT_KB})`);
  const handles = await settledHandles();
  check(handles.length === 0, `handles left after close: ${handles.join(', ')}`);

  const per = (n: number): string => `${Math.round(n / (ranMs / 60_000)).toLocaleString('en-US')}/min`;
  const report = [
    `# Soak: queue, bus and cache on one redis-server for ${Math.round(ranMs / 1000)} s`,
    '',
    `Samples every ${SAMPLE_MS} ms (a full GC before each heap sample); slopes are least squares over the samples after ${Math.round(warmupMs / 1000)} s of warm-up.`,
    '',
    table(
      ['measure', 'figure'],
      [
        ['jobs produced (plain, retried once, delayed 200 ms, flows of 1+2)', `${produced.toLocaleString('en-US')} (${per(produced)}), ${flows} flows`],
        ['jobs completed / dead / rows left', `${counts.completed} / ${counts.dead} / ${keys.jobRows}; ${workerStats.retried} attempts failed and retried`],
        ['bus entries appended / acked by the group', `${appended} / ${groupStats.acked} (${groupStats.failed} retries, ${groupStats.claimed} claimed, ${groupStats.deadLettered} dead)`],
        ['cache ops (getOrSet, get, set, delete, deleteByTag)', `${cacheOps.toLocaleString('en-US')} (${per(cacheOps)}); ${factoryRuns} factory runs, ${tagDeletes} tag deletes`],
        ['cache hits / l2 hits / fills / peer fills, both caches', cacheStats.map((s) => `${s.hits}/${s.l2Hits}/${s.fills}/${s.peerFills}`).join(' and ')],
        ['drain after production stopped', `${drainMs} ms`],
        ['**Node heap slope**', `**${heapSlopeKb.toFixed(0)} KB/min** (samples ${heap.map(([, y]) => (y / 1e6).toFixed(1)).join(', ')} MB)`],
        ['**Redis used_memory slope**', `**${redisSlopeKb.toFixed(0)} KB/min**, of which flow residue ${residueKbPerMin.toFixed(0)} KB/min: **net ${redisNetKb.toFixed(0)} KB/min**`],
        ['Redis samples', `${redis.map(([, y]) => (y / 1e6).toFixed(2)).join(', ')} MB`],
        ['flow residue left (`:processed` / `:dependencies`)', `${keys.residue.processed ?? 0} / ${keys.residue.dependencies ?? 0} of ${flows} flows, ${(keys.residueBytes / 1e3).toFixed(0)} KB`],
        ['keys left, by kind', Object.entries(keys.kinds).map(([k, n]) => `${k} ${n}`).join(', ')],
        ['handles beyond the start, after close', handles.length === 0 ? 'none' : handles.join(', ')],
        ['verdict', violations.length === 0 ? 'ok' : `**${violations.length} violation(s)**: ${violations.join('; ')}`],
      ],
    ),
  ].join('\n');
  publish('soak.md', report);
}

try {
  await main();
} catch (error) {
  violations.push(`the run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.stderr.write(`${String(violations.at(-1))}\n`);
}
if (violations.length > 0) process.exitCode = 1;
// Nothing should hold the loop open now; if something does, say so instead of hanging.
const exitAt = Date.now();
setTimeout(() => {
  process.stderr.write(`soak: still running ${Date.now() - exitAt} ms after closing everything: ${process.getActiveResourcesInfo().join(', ')}\n`);
  process.exit(1);
}, 10_000).unref();
process.on('exit', () => progress(`soak: exited ${Date.now() - exitAt} ms after closing everything`));
