import { readFileSync } from 'node:fs';

/** Written in by the bundler (`scripts/bundle.mjs`): a bundle answers its version wherever it lies. */
declare const ECHO_CLI_VERSION: string | undefined;

/**
 * This package's version, read from its package.json (one level above `src/` and `dist/` alike),
 * for `emq --version`. A bundle that left the file behind answers `unknown` rather than failing.
 */
function readVersion(): string {
  if (typeof ECHO_CLI_VERSION === 'string') return ECHO_CLI_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The `@echo/cli` version `emq --version` prints. */
export const VERSION = readVersion();
