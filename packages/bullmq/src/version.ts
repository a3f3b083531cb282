import { readFileSync } from 'node:fs';

/**
 * This package's version, read from its package.json (one level above `src/` and `dist/` alike).
 * A bundle that left the file behind answers `unknown` rather than failing.
 */
function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The `@echo/bullmq` version a queue records in its meta (`getVersion()`), as BullMQ records its own. */
export const version = readVersion();

/**
 * The library name in the recorded version (`<name>:<version>`). BullMQ writes `bullmq`; the drop-in
 * keeps that start, so a check for `bullmq` still matches, and says which implementation wrote it.
 */
export const LIB_NAME = 'bullmq-echo';
