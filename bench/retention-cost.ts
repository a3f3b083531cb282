/**
 * What finished-job retention costs the one-by-one worker (a Worker at concurrency 50, the fused
 * complete_claim round): server commands per job (INFO commandstats, Lua-internal calls included),
 * Redis CPU per job and Node CPU per job, with completed retention off (the default: the row is
 * deleted) and on (`keep: { completed: { count: 1000 } }`, so the trim runs on every completion).
 * Rounds alternate off, on, off, on, ...; per-job figures, not wall-clock ratios, because the
 * machine may be shared.
 *
 *   pnpm bench:retention                  # 10,000 jobs, 3 rounds per mode
 *   pnpm bench:retention --quick          # 2,000 jobs, 1 round per mode
 */
import { Queue, Worker, type KeepPolicy } from '@echo/queue';
import { Admin, snapshotDelta, totalCalls } from './lib/admin.js';
import { boolOption, intOption } from './lib/options.js';
import { acquireTarget } from './lib/target.js';

const QUICK = boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 10_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 3);
const CONCURRENCY = intOption('concurrency', 50);

interface Figures {
  readonly commandsPerJob: number;
  readonly evalshaPerJob: number;
  readonly serverUsPerJob: number;
  readonly clientUsPerJob: number;
}

async function round(admin: Admin, url: string, keep: KeepPolicy | undefined): Promise<Figures> {
  await admin.flushAll();
  const queue = await Queue.open<number>('retention-bench', { connect: url, ...(keep === undefined ? {} : { keep }) });
  await queue.enqueueMany(Array.from({ length: JOBS }, (_, i) => ({ payload: i })));
  let done = 0;
  let finish: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (finish = resolve));
  const before = await admin.snapshot();
  const worker = await Worker.start(queue, (job) => {
    if (++done === JOBS) finish();
    return { n: job.payload };
  }, { concurrency: CONCURRENCY });
  await all;
  await worker.close();
  const after = await admin.snapshot();
  await queue.close();
  const delta = snapshotDelta(before, after);
  const commands = delta.calls;
  return {
    commandsPerJob: totalCalls(commands) / JOBS,
    evalshaPerJob: (commands.get('evalsha') ?? 0) / JOBS,
    serverUsPerJob: delta.serverCpuUs / JOBS,
    clientUsPerJob: delta.clientCpuUs / JOBS,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const target = await acquireTarget();
const admin = new Admin(target);
const url = target.url;
const results: Record<'off' | 'on', Figures[]> = { off: [], on: [] };
try {
  for (let r = 0; r < ROUNDS; r++) {
    results.off.push(await round(admin, url, undefined));
    results.on.push(await round(admin, url, { completed: { count: 1000 } }));
  }
} finally {
  admin.client.disconnect();
  await target.stop();
}
console.log(`retention cost: ${String(JOBS)} jobs, Worker concurrency ${String(CONCURRENCY)}, ${String(ROUNDS)} round(s) per mode (medians)`);
console.log('mode | commands/job | evalsha/job | redis CPU us/job | node CPU us/job');
for (const mode of ['off', 'on'] as const) {
  const f = results[mode];
  const m = (pick: (x: Figures) => number): string => median(f.map(pick)).toFixed(2);
  console.log(`${mode} | ${m((x) => x.commandsPerJob)} | ${m((x) => x.evalshaPerJob)} | ${m((x) => x.serverUsPerJob)} | ${m((x) => x.clientUsPerJob)}`);
}
