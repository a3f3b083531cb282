#!/usr/bin/env node
/**
 * Bundles the `emq` bin with esbuild: `packages/cli/src/bin.ts`, the workspace packages it reaches
 * (read as source through the `@echo/source` condition) and its npm dependencies, into one entry
 * and its chunks. Node then reads a handful of files instead of resolving and compiling hundreds at
 * every call (installed unbundled, `emq queues` spent about 1 CPU-s starting; see the package's
 * README). Plain JavaScript on purpose: it runs before anything is built, and without a loader.
 *
 *   node scripts/bundle.mjs          # writes dist/emq.mjs (+ dist/chunks/), the published bin
 *
 * `scripts/emq.mjs` at the repository root (what `pnpm emq` runs in a checkout) builds the same
 * bundle into `packages/cli/.bundle/` with {@link bundleEmq}.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Writes `<outdir>/emq.mjs` and `<outdir>/chunks/`. Split at the CLI's dynamic imports: `emq
 * --help` loads the entry (the argument parser) only; the commands, the pillars, the driver and the
 * Node built-ins they import (tls, http, crypto...) are a chunk loaded when a command runs.
 * The version is written into the bundle, so it answers `emq --version` wherever it lies.
 * @param {{ outdir: string }} options `outdir` is emptied of an older build's chunks first.
 */
export async function bundleEmq({ outdir }) {
  const { build } = await import('esbuild');
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  rmSync(join(outdir, 'chunks'), { recursive: true, force: true }); // no chunk of an older build left behind
  rmSync(join(outdir, 'emq.mjs'), { force: true });
  await build({
    entryPoints: { emq: join(pkgDir, 'src/bin.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@echo/source'],
    define: { ECHO_CLI_VERSION: JSON.stringify(version) },
    // CommonJS dependencies (ioredis, ...) call require() for Node's built-ins.
    banner: { js: "import { createRequire as __echoRequire } from 'node:module'; const require = __echoRequire(import.meta.url);" },
    logLevel: 'error',
    legalComments: 'none',
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleEmq({ outdir: join(pkgDir, 'dist') });
}
