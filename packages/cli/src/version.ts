import { readFileSync } from 'node:fs';

/**
 * This package's version, read from its package.json (one level above `src/` and `dist/` alike),
 * for `emq --version`. A bundle that left the file behind answers `unknown` rather than failing.
 */
function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The `@echo/cli` version `emq --version` prints. */
export const VERSION = readVersion();
