import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { EmittedBlock } from './emit.js';

/** One compiler message, placed at the Markdown line it came from. */
export interface BlockError {
  readonly where: string;
  readonly message: string;
  /** The block the message is about, when it is about one. */
  readonly block?: EmittedBlock['block'];
}

const require = createRequire(import.meta.url);

/**
 * Type-checks every emitted block in one `tsc --noEmit` run, under the repository's strict base
 * config, against the packages' published declarations (`dist/*.d.ts`, what an app's compiler
 * reads: build first, as `pnpm test` does), with `ambient` declaring the app stand-ins every block may use.
 */
export function typecheckBlocks(dir: string, emitted: readonly EmittedBlock[], ambient: string, baseConfig: string): BlockError[] {
  const config = {
    extends: baseConfig,
    // exactOptionalPropertyTypes is off because it is off in an app's `strict` tsconfig, where
    // `{ connect: process.env.REDIS_URL }` (a string or undefined) is the idiom the examples show.
    compilerOptions: { noEmit: true, declaration: false, declarationMap: false, sourceMap: false, exactOptionalPropertyTypes: false },
    files: [ambient, ...emitted.map((e) => e.path)],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const byPath = new Map(emitted.map((e) => [e.path, e]));
  const errors: BlockError[] = [];
  for (const line of `${result.stdout}${result.stderr}`.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+: .*)$/.exec(line);
    if (m === null) {
      if (/error TS\d+/.test(line)) errors.push({ where: 'tsc', message: line });
      continue;
    }
    const emittedBlock = byPath.get(m[1] ?? '');
    const where = emittedBlock === undefined ? `${m[1] ?? ''}:${m[2] ?? ''}` : emittedBlock.origin(Number(m[2]));
    errors.push({ where, message: m[4] ?? line, ...(emittedBlock === undefined ? {} : { block: emittedBlock.block }) });
  }
  if (result.status !== 0 && errors.length === 0) {
    errors.push({ where: 'tsc', message: `exited ${String(result.status)}: ${result.stdout}${result.stderr}` });
  }
  return errors;
}
