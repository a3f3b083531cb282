/**
 * The plain path of `enqueueMany`: 20,000 items without options, in the default 1,000-item chunks.
 * Reports server commands per job (INFO commandstats, the script loads excluded by a warm-up call)
 * and the Node process CPU per job (process.cpuUsage around the call), over several rounds, plus
 * the same for items that each carry a priority (the `enqueue_many_with` path). Wall-clock time on
 * a shared machine is noise: read CPU per job, and rerun on a quiet machine for absolute figures.
 *
 *   pnpm bench:many                 # 20,000 items, 7 rounds
 *   pnpm bench:many --quick         # a smoke run
 */
import { Queue } from '@echo/queue';
import { startRedis } from '@echo/testkit';
import { boolOption, intOption } from './lib/options.js';

const QUICK = process.argv.includes('--quick') || boolOption('quick', false);
const ITEMS = intOption('items', QUICK ? 2_000 : 20_000);
const ROUNDS = intOption('rounds', QUICK ? 2 : 7);
const WITH = process.argv.includes('--with-options');

async function calls(q: Queue<number>): Promise<number> {
  const text = String(await q.connection.command('INFO', 'commandstats'));
  let total = 0;
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'info' && m[1] !== 'config|resetstat') total += Number(m[2]);
  return total;
}

const server = await startRedis();
const q = await Queue.open<number>('bench-many', { connect: { host: server.host, port: server.port } });
const items = (n: number): { payload: number; priority?: number }[] => Array.from({ length: n }, (_, i) => (WITH ? { payload: i, priority: 1 + (i % 5) } : { payload: i }));
await q.enqueueMany(items(2_000));
const cpu: number[] = [];
const commands: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  await q.drain();
  const batch = items(ITEMS);
  await q.connection.command('CONFIG', 'RESETSTAT');
  const before = process.cpuUsage();
  const results = await q.enqueueMany(batch);
  const used = process.cpuUsage(before);
  if (results.length !== ITEMS || results.some((x) => x.status !== 'enqueued')) throw new Error('not every item was admitted');
  cpu.push((used.user + used.system) / ITEMS);
  commands.push((await calls(q)) / ITEMS);
}
await q.close();
await server.stop();
const sorted = [...cpu].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    items: ITEMS,
    rounds: ROUNDS,
    withOptions: WITH,
    cpuMicrosPerJob: { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) },
    commandsPerJob: commands[0],
  }),
);
