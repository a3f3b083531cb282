/**
 * The worker's room talks to its queue through the lease and maintenance handles only: no file
 * under src/worker imports the Queue class, and nothing outside it imports upward into it except
 * the entry points that export the workers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function imports(path: string): string[] {
  return [...readFileSync(path, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1] ?? '');
}

describe('the worker boundary', () => {
  it('no file under src/worker imports queue.ts', () => {
    const offenders = files(join(src, 'worker')).filter((path) => imports(path).some((spec) => /(^|\/)queue\.js$/.test(spec)));
    expect(offenders).toEqual([]);
  });

  it('only the entry points import from src/worker', () => {
    const outside = files(src).filter((path) => !path.startsWith(join(src, 'worker')));
    const offenders = outside.filter((path) => imports(path).some((spec) => spec.startsWith('./worker/') || spec.startsWith('../worker/')));
    expect(offenders.map((path) => path.slice(src.length + 1)).sort()).toEqual(['index.ts', 'internal.ts']);
  });
});
