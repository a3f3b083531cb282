/**
 * The API reports: one `packages/<name>/api/<entry>.api.md` per published entry point, written by
 * API Extractor from the built `.d.ts` files. `--check` (CI, `pnpm api:check`) fails when a report
 * differs from what the code exports now, so the public surface changes only on purpose;
 * `--update` (`pnpm api:update`) rewrites the reports after a deliberate change.
 *
 * Run after a build: it reads `dist/`, not `src/`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = ['protocol', 'queue', 'bus', 'cache', 'testkit', 'conformance', 'cli', 'dashboard', 'otel', 'bullmq'] as const;

interface Entry {
  readonly pkg: string;
  readonly report: string;
  readonly dts: string;
}

type Exports = Record<string, string | Record<string, string>>;

/** Every entry point a package publishes, read from the exports map it ships. */
function entries(pkg: string): Entry[] {
  const dir = join(root, 'packages', pkg);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { publishConfig?: { exports?: Exports } };
  const exported = manifest.publishConfig?.exports ?? {};
  const out: Entry[] = [];
  for (const [subpath, target] of Object.entries(exported)) {
    if (typeof target === 'string' || target.types === undefined) continue;
    const suffix = subpath === '.' ? '' : `-${subpath.slice(2).replaceAll('/', '-')}`;
    out.push({ pkg, report: `${pkg}${suffix}.api.md`, dts: join(dir, target.types) });
  }
  return out;
}

function extract(entry: Entry, update: boolean, temp: string): { ok: boolean; changed: boolean } {
  const dir = join(root, 'packages', entry.pkg);
  if (update) mkdirSync(join(dir, 'api'), { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: entry.dts,
      // The build config: no `@echo/source` condition, so sibling packages resolve to their `dist/`
      // declarations, as they will for a user.
      compiler: { tsconfigFilePath: join(dir, 'tsconfig.build.json') },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: join(dir, 'api'),
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
          // Release tags (@public/@beta) are a Rush convention we do not use: everything exported is public.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
          // A doc comment's {@link} to a member is a documentation matter; the report tracks the surface.
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        },
        // TSDoc style is lint's business, not the report's.
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(dir, 'package.json'),
  });
  const messages: string[] = [];
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback(message: ExtractorMessage) {
      message.handled = true;
      if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) messages.push(`  ${message.formatMessageWithoutLocation()}`);
    },
  });
  for (const line of messages) console.error(line);
  return { ok: result.succeeded, changed: result.apiReportChanged };
}

/**
 * Names a handle might end with besides `close()`. Every Echo handle closes with `close()` and says so
 * with `closed`; an old name may stay only refused (typed `never`: it throws a RenamedError naming `close()`).
 */
const OTHER_ENDINGS = ['stop', 'shutdown', 'disconnect', 'quit', 'dispose', 'destroy', 'terminate', 'end'];

/** Declarations that keep another ending on purpose, each with its reason. */
const OTHER_ENDING_ALLOWED: Readonly<Record<string, string>> = {
  // The test servers are processes the testkit starts and stops, not connections a user holds.
  'testkit.RedisServer.stop': 'a redis-server process',
  'testkit.RedisCluster.stop': 'the cluster nodes\' processes',
  'testkit.SentinelGroup.stop': 'the sentinel group\'s processes',
  // start() and stop() subscribe and unsubscribe the metrics to the hooks, and may alternate.
  'protocol.HookMetrics.stop': 'a subscription that starts again',
};

/** The class and interface members of every report that end a handle by another name than `close()`. */
function otherEndings(reportFiles: readonly { pkg: string; path: string }[]): string[] {
  const found = new Set<string>();
  for (const { pkg, path } of reportFiles) {
    let owner: string | undefined;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const opened = /^export (?:declare )?(?:abstract )?(?:class|interface) (\w+)/.exec(line);
      if (opened) owner = opened[1];
      else if (line.startsWith('}')) owner = undefined;
      else if (owner !== undefined) {
        const member = /^ {4}(\w+)\(.*\): (.+);$/.exec(line);
        if (member && OTHER_ENDINGS.includes(member[1] ?? '') && member[2] !== 'never') {
          const key = `${pkg}.${owner}.${member[1] ?? ''}`;
          if (OTHER_ENDING_ALLOWED[key] === undefined) found.add(`${key}() in ${path.slice(root.length + 1)}`);
        }
      }
    }
  }
  return [...found].sort();
}

const update = process.argv.includes('--update');
const temp = mkdtempSync(join(tmpdir(), 'echo-api-'));
let failed = 0;
try {
  for (const entry of PACKAGES.flatMap(entries)) {
    const { ok, changed } = extract(entry, update, temp);
    const path = `packages/${entry.pkg}/api/${entry.report}`;
    if (!ok || (changed && !update)) {
      failed += 1;
      console.error(`api: ${path} ${changed ? 'differs from the exports: review the change, then run `pnpm api:update`' : 'failed'}`);
    } else {
      console.log(`api: ${path} ${changed ? 'updated' : 'unchanged'}`);
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
for (const ending of otherEndings(PACKAGES.flatMap(entries).map((e) => ({ pkg: e.pkg, path: join(root, 'packages', e.pkg, 'api', e.report) })))) {
  failed += 1;
  console.error(`api: ${ending} ends a handle: name it close() (with closed), and refuse the old name with a RenamedError`);
}
if (failed > 0) process.exit(1);
