/**
 * One measurement of `cache-vs-bentocache.ts` in a process of its own: the row, side and round in
 * BENCH_CHILD (`{"index":…,"which":…,"round":…}`), the server in REDIS_URL, the sizes on the command
 * line as the parent got them. Prints the row's cost as one JSON line.
 *
 * A process per measurement, because in one process the two caches share a heap: each side's L1
 * (10,000 fills of 5 KB, 50 MB) became garbage when it closed and was collected during the next
 * side's measured run, which moved a side's figure by up to 1.9x between rounds of one run.
 */
import { Redis } from 'ioredis';
import { measureSide, rows, type Side } from './cache-rows.js';
import { acquireTarget } from './target.js';

const job = JSON.parse(process.env.BENCH_CHILD ?? '{}') as { index: number; which: Side; round: number };
const row = rows[job.index];
if (row === undefined) throw new Error(`no row ${String(job.index)}`);
const target = await acquireTarget();
const side = new Redis({ host: target.host, port: target.port, ...(target.password !== undefined ? { password: target.password } : {}) });
try {
  const cost = await measureSide(row, target, side, job.which, job.round, job.index);
  process.stdout.write(`${JSON.stringify(cost)}\n`);
} finally {
  side.disconnect();
}
