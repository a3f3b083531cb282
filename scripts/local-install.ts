/**
 * Installs Echo packages into an app before they are on the npm registry: packs the named packages
 * and every `@echo/*` package they depend on (built first, in one turbo run), copies the tarballs into
 * `<app>/vendor/echo/` and installs them all with one `npm install`, so nothing is looked up on the
 * public registry (the `@echo` scope points at nothing during the install).
 *
 *   pnpm local-install <app-dir> queue bus        # names without the scope; default: queue
 *
 * The app's package.json then lists `file:vendor/echo/echo-queue-<version>.tgz`; commit the vendor
 * folder or rerun the command after pulling. Once the packages are published, `npm install
 * @echo/queue` replaces all of this.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Manifest;

/** The package directories by their short name (`queue` for `@echo/queue`), published ones only. */
function published(): Map<string, Manifest> {
  const found = new Map<string, Manifest>();
  for (const dir of readdirSync(join(root, 'packages'))) {
    if (!existsSync(join(root, 'packages', dir, 'package.json'))) continue;
    const m = manifest(dir);
    if (m.private !== true && m.name === `@echo/${dir}`) found.set(dir, m);
  }
  return found;
}

/** The named packages and every `@echo/*` package they need at run time, dependencies first. */
export function closure(names: readonly string[], packages: ReadonlyMap<string, Manifest> = published()): string[] {
  const order: string[] = [];
  const visit = (name: string, from: string | undefined): void => {
    if (order.includes(name)) return;
    const m = packages.get(name);
    if (m === undefined) {
      const known = [...packages.keys()].sort().join(', ');
      throw new Error(from === undefined ? `no published package @echo/${name} (known: ${known})` : `@echo/${from} needs @echo/${name}, which is not published`);
    }
    for (const dep of Object.keys(m.dependencies ?? {})) {
      if (dep.startsWith('@echo/')) visit(dep.slice('@echo/'.length), name);
    }
    order.push(name);
  };
  for (const name of names) visit(name.replace(/^@echo\//, ''), undefined);
  return order;
}

/** Runs a command quietly; on failure what it printed goes into the error. */
function run(cmd: string, args: readonly string[], cwd: string): void {
  try {
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    throw failed(cmd, args, cwd, error);
  }
}

/** {@link run}, without blocking: several packs go at once. */
function runAsync(cmd: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, encoding: 'utf8' }, (error) => (error === null ? resolve() : reject(failed(cmd, args, cwd, error))));
  });
}

function failed(cmd: string, args: readonly string[], cwd: string, error: unknown): Error {
  const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
  return new Error(`${cmd} ${args.join(' ')} failed in ${cwd}\n${stdout}${stderr}`, { cause: error });
}

/** Runs `work` over `items`, at most `limit` at a time; answers in the items' order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** How many `pnpm pack` run at once: each is mostly pnpm's start and gzip. */
const PACKS_AT_ONCE = 3;

/** Packs and installs; returns the tarball paths it installed, relative to the app. */
export async function localInstall(appDir: string, names: readonly string[]): Promise<string[]> {
  const app = resolve(appDir);
  if (!existsSync(join(app, 'package.json'))) {
    throw new Error(`${app} has no package.json (run \`npm init -y\` there first)`);
  }
  if (!relative(root, app).startsWith('..')) {
    throw new Error(`${app} is inside the Echo workspace; install into an app outside it`);
  }
  const wanted = closure(names.length === 0 ? ['queue'] : names);
  const vendor = join(app, 'vendor', 'echo');
  mkdirSync(vendor, { recursive: true });
  // Each step says how long it took, so a slow install shows where its time went.
  let stepStarted = performance.now();
  const took = (): string => {
    const seconds = (performance.now() - stepStarted) / 1000;
    stepStarted = performance.now();
    return `${seconds.toFixed(1)} s`;
  };
  // One turbo build of every package to pack (in parallel, dependencies once), so each `pnpm pack`
  // below finds its `prepack` build in turbo's cache instead of starting a build of its own.
  console.log(`local-install: building ${wanted.map((n) => `@echo/${n}`).join(' ')}`);
  run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only', ...wanted.map((n) => `--filter=@echo/${n}`)], root);
  console.log(`local-install: built (${took()})`);
  const scratch = mkdtempSync(join(tmpdir(), 'echo-pack-'));
  let tarballs: string[];
  try {
    console.log(`local-install: packing ${String(wanted.length)} packages, ${String(PACKS_AT_ONCE)} at a time`);
    tarballs = await pool(wanted, PACKS_AT_ONCE, async (name) => {
      // A directory per package: a pack never sees another's tarball.
      const into = mkdtempSync(join(scratch, `${name}-`));
      // --ignore-scripts: the `prepack` build already ran above, in the one turbo run for all of
      // them; each prepack would start turbo again to find its cache hit (about 3 s a pack on a
      // loaded machine, most of a pack's time).
      await runAsync('pnpm', ['pack', '--ignore-scripts', '--pack-destination', into], join(root, 'packages', name));
      const file = readdirSync(into).find((f) => f.startsWith(`echo-${name}-`) && f.endsWith('.tgz'));
      if (file === undefined) throw new Error(`pnpm pack wrote no tarball for @echo/${name}`);
      writeFileSync(join(vendor, file), readFileSync(join(into, file)));
      return `./${relative(app, join(vendor, file))}`;
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  console.log(`local-install: packed (${took()}); npm install ${tarballs.join(' ')}`);
  // Every tarball on one command line, and the scope pointed at nothing: npm never asks the public
  // registry for an @echo package (it would 404, or find someone else's).
  // --prefer-offline: the npm dependencies (ioredis, hono, ...) come from npm's cache when it has them.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--@echo:registry=http://127.0.0.1:9/', '--fetch-retries=0', ...tarballs], app);
  console.log(`local-install: installed (${took()})`);
  return tarballs;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [appDir, ...names] = process.argv.slice(2);
  if (appDir === undefined || appDir.startsWith('-')) {
    console.error('usage: pnpm local-install <app-dir> [queue] [bus] [cache] [otel] [dashboard] [cli] [testkit] [conformance]');
    process.exitCode = 2;
  } else {
    try {
      const installed = await localInstall(appDir, names);
      console.log(`local-install: ${String(installed.length)} packages installed into ${resolve(appDir)}`);
    } catch (error) {
      console.error(`local-install: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  }
}
