/**
 * What the queue's settings cost the one-by-one worker (a Worker at concurrency 50, the fused
 * complete_claim round): jobs/s, server commands per job (INFO commandstats, Lua-internal calls
 * included), Redis CPU per job and Node CPU per job, with nothing set (the default), with completed
 * retention on (`keep: { completed: { count: 1000 } }`, so the trim runs on every completion), with
 * a rate limit that never bites (`max` 10^9 per second: the price of the check and the count),
 * with every job carrying a priority, and with the operator's memory on: the attempt history
 * (`setEvents({ history: 20 })`, alone and with completed retention, where the completion's end
 * record is written too) and the per-minute counts (`setEvents({ minutes: 180 })`). Rounds rotate through the modes; per-job CPU and commands
 * are the figures to trust on a shared machine, jobs/s on a quiet one. Last, issue 25's keep.completed
 * goal: retention at ≥ 0.95x of plain's jobs/s (issue 40; paired within each round) and ≤ 8 commands per job.
 *
 *   pnpm bench:settings                   # 10,000 jobs, 3 rounds per mode
 *   pnpm bench:settings --quick           # 2,000 jobs, 1 round per mode
 *   pnpm bench:settings --modes=retention # plain and retention only (plain always runs)
 */
import { Queue, Worker } from '@echo/queue';
import { Admin } from './lib/admin.js';
import { goalLine } from './lib/goals.js';
import { boolOption, intOption } from './lib/options.js';
import { clientUs, perJob, perSecond, phase, serverUs, type Phase } from './lib/phase.js';
import { acquireTarget } from './lib/target.js';

const QUICK = boolOption('quick', false);
const JOBS = intOption('jobs', QUICK ? 2_000 : 10_000);
const ROUNDS = intOption('rounds', QUICK ? 1 : 3);
const CONCURRENCY = intOption('concurrency', 50);

const ALL_MODES = ['plain', 'retention', 'limiter', 'priority', 'history', 'history-kept', 'minutes'] as const;
type Mode = (typeof ALL_MODES)[number];
/** `--modes plain,retention` runs only those (plain is always kept: every ratio is against it). */
const MODES: readonly Mode[] = modesOption();

function modesOption(): readonly Mode[] {
  const raw = process.argv.find((a) => a.startsWith('--modes='))?.slice('--modes='.length) ?? process.env.MODES;
  if (raw === undefined || raw === '') return ALL_MODES;
  const asked = raw.split(',').map((m) => m.trim());
  const unknown = asked.filter((m) => !(ALL_MODES as readonly string[]).includes(m));
  if (unknown.length > 0) throw new Error(`--modes: unknown ${unknown.join(', ')}; known: ${ALL_MODES.join(', ')}`);
  return ALL_MODES.filter((m) => m === 'plain' || asked.includes(m));
}

async function round(admin: Admin, url: string, mode: Mode): Promise<Phase> {
  await admin.flushAll();
  const kept = mode === 'retention' || mode === 'history-kept';
  const queue = await Queue.open<number>('settings-bench', { connect: url, ...(kept ? { keep: { completed: { count: 1000 } } } : {}) });
  if (mode === 'history' || mode === 'history-kept') await queue.setEvents({ history: 20 });
  if (mode === 'minutes') await queue.setEvents({ minutes: 180 });
  if (mode === 'limiter') await queue.setRateLimit({ max: 1_000_000_000, durationMs: 1000 });
  await queue.enqueueMany(Array.from({ length: JOBS }, (_, i) => ({ payload: i, ...(mode === 'priority' ? { priority: i % 5 } : {}) })));
  let done = 0;
  let finish: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (finish = resolve));
  const before = await admin.snapshot();
  const started = performance.now();
  const worker = await Worker.start(queue, (job) => {
    if (++done === JOBS) finish();
    return { n: job.payload };
  }, { concurrency: CONCURRENCY });
  await all;
  const elapsedMs = performance.now() - started;
  await worker.close();
  const after = await admin.snapshot();
  await queue.close();
  return phase(elapsedMs, JOBS, before, after);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const target = await acquireTarget();
const admin = new Admin(target);
const url = target.url;
const results = new Map<Mode, Phase[]>(MODES.map((m) => [m, []]));
try {
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order so no mode always runs first (or right after the same neighbour).
    for (let i = 0; i < MODES.length; i++) {
      const mode = MODES[(i + r) % MODES.length] as Mode;
      results.get(mode)?.push(await round(admin, url, mode));
    }
  }
} finally {
  admin.client.disconnect();
  await target.stop();
}
console.log(`settings cost: ${String(JOBS)} jobs, Worker concurrency ${String(CONCURRENCY)}, ${String(ROUNDS)} round(s) per mode (medians)`);
console.log('mode | jobs/s | vs plain | commands/job | evalsha/job | redis CPU us/job | node CPU us/job');
const plainRate = median((results.get('plain') ?? []).map(perSecond));
for (const mode of MODES) {
  const f = results.get(mode) ?? [];
  const m = (pick: (x: Phase) => number, digits = 2): string => median(f.map(pick)).toFixed(digits);
  const rate = median(f.map(perSecond));
  console.log(`${mode} | ${rate.toFixed(0)} | ${(rate / plainRate).toFixed(2)}x | ${m(perJob)} | ${m((x) => (x.commands.get('evalsha') ?? 0) / x.jobs)} | ${m(serverUs)} | ${m(clientUs)}`);
}
console.log('');
console.log('Goal (issues 25 and 40), medians; the jobs/s ratio is taken within each round, so it needs a quiet machine; CPU and commands per job do not:');
console.log(
  goalLine({
    label: `keep.completed: retention vs plain, Worker c${CONCURRENCY}`,
    sides: { echo: 'retention', peer: 'plain', unit: 'job' },
    atLeast: 0.95,
    commandsAtMost: 8,
    peer: results.get('plain') ?? [],
    echo: results.get('retention') ?? [],
    always: true,
  }),
);
