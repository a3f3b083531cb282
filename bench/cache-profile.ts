/**
 * One side of one cache row, alone, for a CPU profile (the paired bench mixes both systems in one
 * process, so its profile cannot tell them apart). Prints ops/s and Node CPU µs/op.
 *
 *   node --conditions=@echo/source --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof cache-profile.ts --row miss-set --side echo
 */
import { type System, RECORDS, VALUE, blob, bento, echo, handRolled, records, wire } from './lib/cache-systems.js';
import { boolOption, intOption, stringOption } from './lib/options.js';
import { Redis } from 'ioredis';
import { acquireTarget } from './lib/target.js';

const ROW = stringOption('row', 'l2-own', ['l2-own', 'miss-fill', 'miss-set']);
const SIDE = stringOption('side', 'echo', ['echo', 'bento', 'raw', 'wire']);
const PAYLOAD = stringOption('payload', 'records', ['blob', 'records']);
const OPS = intOption('ops', 20_000);
const CALLERS = intOption('callers', 50);
/** Extra namespace options for Echo's side, as JSON (`--echo '{"coherence":false}'`). */
const EXTRA = JSON.parse(process.env.ECHO_OPTS ?? '{}') as Record<string, unknown>;
const value = PAYLOAD === 'blob' ? VALUE : RECORDS;
/** `--fresh`: each fill answers, and each set writes, new objects (as a loader does), not one shared value. */
const FRESH = boolOption('fresh', false);
const make = PAYLOAD === 'blob' ? blob : records;
const fill = (): Promise<typeof value> => Promise.resolve(FRESH ? make() : value);

async function loops(per: number, call: (caller: number, i: number) => Promise<unknown>): Promise<void> {
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = 0; i < per; i++) await call(c, i);
    }),
  );
}

const target = await acquireTarget();
const l2 = ROW === 'l2-own';
const system: System =
  SIDE === 'echo'
    ? await echo(target, 'p', { ...(l2 ? { l1: false } : {}), ...EXTRA })
    : SIDE === 'bento'
      ? bento(target, 'p', l2 ? { l1: false } : { l1: 'copy', bus: false })
      : SIDE === 'raw'
        ? handRolled(target, 'p')
        : await wire(target, 'p');
try {
  if (l2) await Promise.all(Array.from({ length: CALLERS }, (_, c) => system.set(`r${String(c)}`, value)));
  const per = Math.ceil(OPS / CALLERS);
  const run = (): Promise<void> =>
    ROW === 'l2-own'
      ? loops(per, (c) => system.getOrSet(`r${String(c)}`, fill))
      : ROW === 'miss-fill'
        ? loops(per, (c, i) => system.getOrSet(`f:${String(c)}:${String(i)}:${String(Math.random())}`, fill))
        : loops(per, async (c, i) => {
            const key = `s:${String(c)}:${String(i)}:${String(Math.random())}`;
            if ((await system.get(key)) === undefined) await system.set(key, FRESH ? make() : value);
          });
  await run(); // warm-up
  const side = new Redis({ host: target.host, port: target.port });
  const counters = async (): Promise<number[]> => {
    const info = `${await side.info('stats')}${await side.info('cpu')}`;
    return ['total_net_input_bytes', 'total_net_output_bytes', 'used_cpu_user', 'used_cpu_sys'].map((f) => Number(new RegExp(`${f}:([\\d.]+)`).exec(info)?.[1] ?? 0));
  };
  const before = await counters();
  const cpu = process.cpuUsage();
  const t = performance.now();
  await run();
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const after = await counters();
  side.disconnect();
  const ops = per * CALLERS;
  const perOp = (n: number): string => (n / ops).toFixed(1);
  process.stdout.write(
    `${SIDE} ${ROW} ${PAYLOAD}: ${String(Math.round(ops / (ms / 1000)))} ops/s, ${perOp(used.user + used.system)} µs CPU/op (user ${perOp(used.user)}, system ${perOp(used.system)}), bytes/op to server ${perOp((after[0] ?? 0) - (before[0] ?? 0))}, from server ${perOp((after[1] ?? 0) - (before[1] ?? 0))}, Redis CPU µs/op ${perOp(((after[2] ?? 0) + (after[3] ?? 0) - (before[2] ?? 0) - (before[3] ?? 0)) * 1e6)}\n`,
  );
} finally {
  await system.close();
  await target.stop();
}
