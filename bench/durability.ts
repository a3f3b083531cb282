/**
 * The price of `durability: 'replicated'`: the same enqueues on a primary with one replica, acknowledged
 * by the primary alone and after `WAIT 1`. Rounds are interleaved and each ratio is taken within its
 * round. Server commands per job come from the primary's INFO commandstats; timing on a shared
 * machine is noise, so the lead reruns it on a quiet one.
 *
 *   pnpm bench:durability                      # 5,000 single enqueues and 20,000 in batches, 5 rounds
 *   pnpm bench:durability --quick              # a smoke run
 */
import { Connection } from '@echo/protocol';
import { Queue, type Durability } from '@echo/queue';
import { startRedis, type RedisServer } from '@echo/testkit';
import type { Redis } from 'ioredis';
import { boolOption, intOption } from './lib/options.js';
import { progress, publish, table } from './lib/report.js';
import { fmt, fmtRatio, fmtSpread, pairedRatios, spread } from './lib/stats.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const SINGLE = intOption('single', QUICK ? 300 : 5_000);
const BULK = intOption('bulk', QUICK ? 2_000 : 20_000);
const BATCH = intOption('batch', 1_000);
const INFLIGHT = intOption('inflight', 16);
const ROUNDS = intOption('rounds', QUICK ? 1 : 5);

type Mode = 'primary' | 'replicated';
type Shape = 'single' | 'inflight' | 'bulk';

interface Figure {
  readonly perSecond: number;
  readonly commandsPerJob: number;
  readonly waitsPerJob: number;
}

async function commandCalls(admin: Redis): Promise<Map<string, number>> {
  const text = (await admin.call('INFO', 'commandstats')) as string;
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(m[1] as string, Number(m[2]));
  return out;
}

async function measure(conn: Connection, admin: Redis, mode: Mode, shape: Shape, round: number): Promise<Figure> {
  const durability: Durability = mode;
  const queue = await Queue.open<number>(`dur-${shape}-${mode}-${round}`, { connection: conn, durability });
  const jobs = shape === 'bulk' ? BULK : SINGLE;
  const before = await commandCalls(admin);
  const t0 = performance.now();
  if (shape === 'single') {
    for (let i = 0; i < jobs; i++) await queue.enqueue(i);
  } else if (shape === 'inflight') {
    let next = 0;
    await Promise.all(
      Array.from({ length: INFLIGHT }, async () => {
        while (next < jobs) await queue.enqueue(next++);
      }),
    );
  } else {
    for (let at = 0; at < jobs; at += BATCH) {
      const results = await queue.enqueueMany(Array.from({ length: Math.min(BATCH, jobs - at) }, (_, i) => ({ payload: at + i })));
      if (results.some((r) => r.status === 'failed')) throw new Error('an admission failed');
    }
  }
  const ms = performance.now() - t0;
  const after = await commandCalls(admin);
  let commands = 0;
  for (const [name, calls] of after) if (name !== 'info') commands += calls - (before.get(name) ?? 0);
  const waits = (after.get('wait') ?? 0) - (before.get('wait') ?? 0);
  await admin.call('FLUSHALL', 'SYNC');
  await admin.call('SET', '{emq}:version', 'echomq:3.0.0');
  return { perSecond: (jobs / ms) * 1000, commandsPerJob: commands / jobs, waitsPerJob: waits / jobs };
}

async function main(): Promise<void> {
  const primary: RedisServer = await startRedis({ args: ['--repl-diskless-sync-delay', '0'] });
  const replica: RedisServer = await startRedis({ args: ['--replicaof', primary.host, String(primary.port)] });
  const admin = primary.client();
  try {
    const watch = replica.client();
    while (!(await watch.info('replication')).includes('master_link_status:up')) await new Promise((resolve) => setTimeout(resolve, 25));
    watch.disconnect();
    const conn = await Connection.connect(primary.url);
    const shapes: Shape[] = ['single', 'inflight', 'bulk'];
    const figures = new Map<string, Figure[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const shape of shapes) {
        for (const mode of round % 2 === 0 ? (['primary', 'replicated'] as const) : (['replicated', 'primary'] as const)) {
          const f = await measure(conn, admin, mode, shape, round);
          const key = `${shape}/${mode}`;
          figures.set(key, [...(figures.get(key) ?? []), f]);
          progress(`round ${round + 1}/${ROUNDS} ${key}: ${fmt(f.perSecond)} jobs/s, ${f.commandsPerJob.toFixed(2)} commands/job`);
        }
      }
    }
    await conn.close();
    const label: Record<Shape, string> = {
      single: `enqueue one at a time (${fmt(SINGLE)})`,
      inflight: `enqueue, ${INFLIGHT} in flight (${fmt(SINGLE)})`,
      bulk: `enqueueMany(${BATCH}) (${fmt(BULK)})`,
    };
    const rows = shapes.map((shape) => {
      const p = figures.get(`${shape}/primary`) ?? [];
      const r = figures.get(`${shape}/replicated`) ?? [];
      const rate = (fs: Figure[]): number[] => fs.map((f) => f.perSecond);
      return [
        label[shape],
        fmtSpread(spread(rate(p))),
        fmtSpread(spread(rate(r))),
        `**${fmtRatio(spread(pairedRatios(rate(r), rate(p))).median)}**`,
        `${(p[0]?.commandsPerJob ?? Number.NaN).toFixed(2)} / ${(r[0]?.commandsPerJob ?? Number.NaN).toFixed(2)}`,
        (r[0]?.waitsPerJob ?? Number.NaN).toFixed(3),
      ];
    });
    const report = [
      `# durability: 'replicated' (WAIT 1) against 'primary'`,
      '',
      `One primary and one replica on loopback, ${ROUNDS} round(s), interleaved; median (min-max).`,
      '',
      table(['measure', "primary, jobs/s", "replicated, jobs/s", 'replicated/primary', 'server commands per job (primary / replicated)', 'WAITs per job'], rows),
    ].join('\n');
    publish('durability.md', report);
  } finally {
    admin.disconnect();
    await replica.stop();
    await primary.stop();
  }
}

await main();
