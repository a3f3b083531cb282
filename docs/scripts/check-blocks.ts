/**
 * The code-block checker: every TypeScript block in the docs and in every README of the repository
 * type-checks against the workspace packages, and every runnable block runs and prints what its
 * page says it prints.
 *
 * What a page writer marks (docs/CONTRIBUTING.md says the same, with examples):
 * - ```ts                a module, type-checked (strict, NodeNext, `@echo/*` as built: run a build first).
 * - ```ts run            also run against a throwaway `redis-server` with `REDIS_URL` set; the
 *                        ```text block right after it holds its exact stdout. It must exit by itself.
 * - ```ts peer / nocheck shown only: another library's code (BullMQ, bentocache, ...) or a fragment.
 * - <!-- prelude: ... --> right above a block: hidden code put before it (imports, `declare const
 *                        queue: Queue<Order>;`), for what the page showed earlier or leaves to the app.
 * - scripts/blocks/ambient.d.ts: stand-ins any block may use without a prelude (`db`, `ship`, ...).
 *
 * Usage: `tsx scripts/check-blocks.ts [--no-run] [--only <path-substring>]` from `docs/`
 * (`pnpm --filter @echo/docs check-blocks`); exits 1 on any failure, listing `file:line: message`.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { collectBlocks, type Block } from './blocks/extract.js';
import { emitBlocks } from './blocks/emit.js';
import { typecheckBlocks, type BlockError } from './blocks/typecheck.js';
import { runBlocks } from './blocks/run.js';

const docsDir = fileURLToPath(new URL('..', import.meta.url));

/** What a check found. */
export interface CheckReport {
  readonly blocks: readonly Block[];
  readonly checked: number;
  readonly ran: number;
  readonly errors: readonly BlockError[];
}

/** Options of {@link checkBlocks}. */
export interface CheckOptions {
  /** Repository root (default: the one this file is in). */
  readonly root?: string;
  /** Blocks to check (default: every block of every file the checker covers). */
  readonly blocks?: readonly Block[];
  /** Run the runnable blocks too (default true). */
  readonly run?: boolean;
  /** Where the emitted modules go; must be inside the workspace so `@echo/*` resolve (default `docs/.blocks`). */
  readonly outDir?: string;
}

/** Type-checks (and runs) the blocks; never throws for a failing block, it reports it. */
export async function checkBlocks(options: CheckOptions = {}): Promise<CheckReport> {
  const root = options.root ?? resolve(docsDir, '..');
  const blocks = options.blocks ?? collectBlocks(root);
  const outDir = options.outDir ?? join(docsDir, '.blocks');
  mkdirSync(outDir, { recursive: true });
  const emitted = emitBlocks(outDir, 'check', blocks);
  const errors: BlockError[] = typecheckBlocks(outDir, emitted, join(docsDir, 'scripts/blocks/ambient.d.ts'), join(root, 'tsconfig.base.json'));
  // A block that does not type-check is not run (its error says enough); the others still are.
  const broken = new Set(errors.map((e) => e.block));
  const stray = errors.some((e) => e.block === undefined);
  const runnable = stray ? [] : blocks.filter((b) => b.mode === 'run' && !broken.has(b));
  let ran = 0;
  if (options.run !== false && runnable.length > 0) {
    const { startRedis } = await import('@echo/testkit');
    const server = await startRedis();
    const client = server.client();
    try {
      const result = await runBlocks(outDir, emitBlocks(outDir, 'run', runnable), {
        url: server.url,
        flush: async () => {
          await client.flushall();
        },
      });
      ran = result.outcomes.length;
      errors.push(...result.errors);
    } finally {
      client.disconnect();
      await server.stop();
    }
  }
  return { blocks, checked: blocks.length, ran, errors };
}

async function main(argv: readonly string[]): Promise<number> {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const all = collectBlocks(resolve(docsDir, '..'));
  const blocks = only === undefined ? all : all.filter((b) => b.file.includes(only));
  const report = await checkBlocks({ blocks, run: !argv.includes('--no-run') });
  for (const e of report.errors) console.error(`${e.where}: ${e.message}`);
  const files = new Set(report.blocks.map((b) => b.file)).size;
  console.log(`blocks: ${String(report.checked)} type-checked in ${String(files)} files, ${String(report.ran)} run, ${String(report.errors.length)} errors`);
  return report.errors.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
