/**
 * Runs BullMQ's own test files against `@echo/bullmq` and prints a per-file table.
 *
 * BullMQ's tests are never committed here: this script takes them from a local snapshot of
 * BullMQ's repository (`fetch github:taskforcesh/bullmq`, or any clone), copies them out of the
 * repository (default `/work/bullmq-suite`), and runs them unedited: the imports of BullMQ's
 * `src/` are redirected by a resolver plugin (`src/classes` to this package, the small
 * `src/utils` helpers to local copies), and the connection factory BullMQ's setup file installs
 * hands each test an ioredis instance (or `{ host, port }` with `--connection options`) on a
 * redis-server the testkit starts for the run.
 *
 * Tests that reach BullMQ's keyspace or its Redis client (`getRedisClient(queue)` and friends)
 * fail with `KeyspaceAccess`, and tests that reach a member BullMQ declares private or protected fail
 * naming it; the table counts both apart, as no drop-in can pass them.
 *
 * ```sh
 * pnpm --filter @echo/bullmq exec tsx --conditions=@echo/source scripts/run-bullmq-suite.ts \
 *   --mirror /work/.mirror/taskforcesh+bullmq/repo [--tag v6.2.0] [--out /work/bullmq-suite] \
 *   [--files events,queue] [--connection ioredis|options] [--parallel 2]
 * ```
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startRedis } from '@echo/testkit';

/** BullMQ's files that test the drop-in's surface; the rest test BullMQ's adapters, sandboxes, scripts. */
const FILES = [
  'bulk', 'clean', 'clean.redis', 'concurrency', 'deduplication', 'delay', 'delay.redis', 'events', 'events.redis',
  'flow', 'flow.redis', 'getters', 'getters.redis', 'job', 'job.redis', 'job_cancellation', 'job_cancellation_advanced',
  'job_scheduler', 'job_scheduler.redis', 'metrics', 'obliterate', 'obliterate.redis', 'pause', 'queue', 'queue.redis',
  'rate_limiter', 'stalled_jobs', 'worker', 'worker.redis',
];

/** The packages BullMQ's test files import, at the versions its package.json pins (vitest: ours). */
const SUITE_DEPS = { sinon: '22.1.0', rrule: '2.8.1', ioredis: '5.11.1', moment: '2.30.1', progress: '2.0.3', vitest: '4.1.12' };

const { values } = parseArgs({
  options: {
    mirror: { type: 'string' },
    tag: { type: 'string', default: 'v6.2.0' },
    out: { type: 'string', default: '/work/bullmq-suite' },
    files: { type: 'string' },
    connection: { type: 'string', default: 'ioredis' },
    parallel: { type: 'string', default: '2' },
    'report-only': { type: 'boolean', default: false },
  },
});
if (values.mirror === undefined) throw new Error('--mirror <path of a BullMQ git repository> is required');
if (values.connection !== 'ioredis' && values.connection !== 'options') throw new Error('--connection is ioredis or options');
const mirror = values.mirror;
const out = resolve(values.out);
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = values.files === undefined ? FILES : values.files.split(',');

if (!values['report-only']) await run();

async function run(): Promise<void> {
// 1. BullMQ's tests at the tag, outside the repository.
rmSync(join(out, 'tests'), { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const archive = execFileSync('git', ['-C', mirror, 'archive', values.tag, 'tests'], { maxBuffer: 1 << 28 });
execFileSync('tar', ['-x', '-C', out], { input: archive });

// 2. Its npm dependencies, once.
if (Object.keys(SUITE_DEPS).some((dep) => !existsSync(join(out, 'node_modules', dep)))) {
  writeFileSync(join(out, 'package.json'), JSON.stringify({ name: 'bullmq-suite', private: true, type: 'module', dependencies: SUITE_DEPS }, null, 2));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: out, stdio: 'inherit' });
}

// 3. Stand-ins for what the tests import from BullMQ's src/ and for its keyspace helpers.
const shims = join(out, 'shims');
mkdirSync(shims, { recursive: true });
const keyspace = `export class KeyspaceAccess extends Error {
  constructor(what) { super('KeyspaceAccess: ' + what + ' reads BullMQ\\'s Redis layout'); this.name = 'KeyspaceAccess'; }
}
`;
writeFileSync(join(shims, 'keyspace.js'), keyspace);
writeFileSync(join(shims, 'classes.ts'), `export * from ${JSON.stringify(join(packageRoot, 'src', 'index.ts'))};\n`);
writeFileSync(
  join(shims, 'utils.ts'),
  `import { randomUUID as uuid } from 'node:crypto';
import { KeyspaceAccess } from './keyspace.js';
export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const randomUUID = () => uuid();
// BullMQ deletes its own keys here; the drop-in's queues live under other keys and unique names.
export async function removeAllQueueData(): Promise<void> {}
export async function isRedisVersionLowerThan(): Promise<boolean> { return false; }
// BullMQ's key-name builder: what a test does with it is read BullMQ's keys.
export function getParentKey(): never { throw new KeyspaceAccess('getParentKey'); }
`,
);
writeFileSync(join(shims, 'empty.ts'), 'export {};\n');
// The version the library records in a queue's meta (getVersion), which BullMQ's tests compare with.
writeFileSync(join(shims, 'version.ts'), `export { version } from ${JSON.stringify(join(packageRoot, 'src', 'version.ts'))};\n`);
writeFileSync(
  join(out, 'tests', 'utils', 'get-redis-client.ts'),
  `import { KeyspaceAccess } from '../../shims/keyspace.js';
export function getRedisClient(): never { throw new KeyspaceAccess('getRedisClient'); }
export function getBlockingRedisClient(): never { throw new KeyspaceAccess('getBlockingRedisClient'); }
export function getRedisConnection(): never { throw new KeyspaceAccess('getRedisConnection'); }
// Reads the version off BullMQ's own Redis client.
export function getRedisVersion(): never { throw new KeyspaceAccess('getRedisVersion'); }
`,
);
writeFileSync(join(out, 'tests', 'utils', 'cleanup-queue.ts'), 'export async function cleanupQueue(): Promise<void> {}\n');
writeFileSync(
  join(out, 'setup.ts'),
  `import IORedis from 'ioredis';
import { setConnectionFactory } from './tests/utils/connection-factory';
const host = process.env.REDIS_HOST ?? '127.0.0.1';
const port = Number(process.env.REDIS_PORT);
setConnectionFactory(((opts?: { host?: string; port?: number }) => {
  if (process.env.SUITE_CONNECTION === 'options') {
    // { host, port } as a BullMQ app writes it; quit/disconnect hidden so strict options still see two keys.
    const options = { host: opts?.host ?? host, port: opts?.port ?? port };
    for (const name of ['quit', 'disconnect']) Object.defineProperty(options, name, { value: async () => 'OK', enumerable: false });
    return options;
  }
  return new IORedis({ host: opts?.host ?? host, port: opts?.port ?? port, maxRetriesPerRequest: null });
}) as never);
`,
);
writeFileSync(
  join(out, 'vitest.config.ts'),
  `import { defineConfig } from 'vitest/config';
const shims = ${JSON.stringify(shims)};
export default defineConfig({
  plugins: [{
    name: 'bullmq-src-to-echo',
    enforce: 'pre',
    resolveId(id) {
      const m = /^(?:\\.\\.\\/)+src\\/(.*)$/.exec(id);
      if (m === null) return null;
      // The enums the drop-in provides (MetricsTime) come from its entry point too.
      if (m[1] === 'classes' || m[1] === 'classes/index' || m[1] === 'enums' || m[1] === 'enums/index') return shims + '/classes.ts';
      if (m[1] === 'utils') return shims + '/utils.ts';
      if (m[1] === 'version') return shims + '/version.ts';
      return shims + '/empty.ts';
    },
  }],
  resolve: { conditions: ['@echo/source'] },
  ssr: { resolve: { conditions: ['@echo/source'] } },
  test: {
    include: ${JSON.stringify(files.map((f) => `tests/${f}.test.ts`))},
    setupFiles: ['./setup.ts'],
    testTimeout: 10000,
    hookTimeout: 10000,
    sequence: { concurrent: false },
    reporters: ['default', ['json', { outputFile: 'results.json' }]],
  },
});
`,
);

// 4. One redis-server for the run, then vitest as BullMQ runs it (files in order unless --parallel).
const server = await startRedis();
try {
  rmSync(join(out, 'results.json'), { force: true });
  spawnSync(join(out, 'node_modules', '.bin', 'vitest'), ['run', `--maxWorkers=${values.parallel}`, ...(values.parallel === '1' ? ['--no-file-parallelism'] : [])], {
    cwd: out,
    stdio: 'inherit',
    env: { ...process.env, REDIS_HOST: server.host, REDIS_PORT: String(server.port), SUITE_CONNECTION: values.connection },
  });
} finally {
  await server.stop();
}
}

// 5. The per-file table.
interface Assertion { status: string; failureMessages: (string | null)[] }

/**
 * The members BullMQ declares `private` or `protected` in its classes at the tag, and `getBackend` (its
 * Redis backend adapter, whose blocking transport the tests stub): a test that reaches one of them tests
 * BullMQ's insides, which no drop-in provides.
 */
function bullmqInternals(): Set<string> {
  const names = new Set<string>(['getBackend']);
  const listing = execFileSync('git', ['-C', mirror, 'ls-tree', '--name-only', values.tag, 'src/classes/'], { encoding: 'utf8' });
  const declared = /^\s*(?:private|protected)\s+(?:(?:static|readonly|async|override|get|set)\s+)*([A-Za-z_$][\w$]*)/gm;
  for (const path of listing.split('\n').filter((p) => p.endsWith('.ts'))) {
    const source = execFileSync('git', ['-C', mirror, 'show', `${values.tag}:${path}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
    for (const m of source.matchAll(declared)) names.add(m[1] ?? '');
  }
  return names;
}
const internals = bullmqInternals();
/**
 * The first error says the test read BullMQ's keyspace, or a member `bullmqInternals` lists is
 * missing, or the test line it failed on reads one (`(worker as any).processorAcceptsSignal`).
 */
function readsBullmqInternals(messages: (string | null)[]): boolean {
  const first = messages.find((m): m is string => typeof m === 'string') ?? '';
  if (first.includes('KeyspaceAccess')) return true;
  const missing = /(?:\.|\[')([A-Za-z_$][\w$]*)'?\]? is not a function|non-existent property ([A-Za-z_$][\w$]*)|wrap undefined property ([A-Za-z_$][\w$]*)/.exec(first);
  const name = missing?.[1] ?? missing?.[2] ?? missing?.[3];
  if (name !== undefined) return internals.has(name);
  const at = /tests\/([\w.]+\.test\.ts):(\d+):/.exec(first);
  if (at === null) return false;
  const line = readFileSync(join(out, 'tests', at[1] ?? ''), 'utf8').split('\n')[Number(at[2]) - 1] ?? '';
  return [...line.matchAll(/as any\)\.([A-Za-z_$][\w$]*)|\[['"]([A-Za-z_$][\w$]*)['"]\]/g)].some((m) => internals.has(m[1] ?? m[2] ?? ''));
}
interface FileResult { name: string; assertionResults: Assertion[]; message?: string }
const report = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { testResults: FileResult[] };
const rows: string[] = ['| file | total | pass | fail | keyspace/private |', '| --- | ---: | ---: | ---: | ---: |'];
const sum = { total: 0, pass: 0, fail: 0, keyspace: 0 };
for (const file of report.testResults.sort((a, b) => a.name.localeCompare(b.name))) {
  const r = { total: 0, pass: 0, fail: 0, keyspace: 0 };
  for (const t of file.assertionResults) {
    r.total += 1;
    if (t.status === 'passed') r.pass += 1;
    else if (readsBullmqInternals(t.failureMessages)) r.keyspace += 1;
    else r.fail += 1;
  }
  for (const k of ['total', 'pass', 'fail', 'keyspace'] as const) sum[k] += r[k];
  rows.push(`| ${file.name.replace(/^.*\/tests\//, '')} | ${String(r.total)} | ${String(r.pass)} | ${String(r.fail)} | ${String(r.keyspace)} |`);
}
const passable = sum.total - sum.keyspace;
rows.push(`| **all** | ${String(sum.total)} | ${String(sum.pass)} | ${String(sum.fail)} | ${String(sum.keyspace)} |`);
rows.push('', `passable: ${String(sum.pass)} of ${String(passable)} (${passable === 0 ? '0' : ((100 * sum.pass) / passable).toFixed(1)}%)`);
writeFileSync(join(out, 'results.md'), rows.join('\n') + '\n');
console.log(rows.join('\n'));
