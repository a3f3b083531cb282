/**
 * The package's shape: one stack in `core/` that both faces stand on and that knows neither of them,
 * and faces that stay thin readings of it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const src = new URL('../src/', import.meta.url);
const files = (dir: string): string[] => readdirSync(new URL(dir, src)).filter((f) => f.endsWith('.ts')).map((f) => `${dir}${f}`);
const imports = (file: string): string[] => [...readFileSync(new URL(file, src), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1] as string);

describe('the cache stack', () => {
  it('core/ imports neither face (keyed/, tables/)', () => {
    const reaching = files('core/').flatMap((file) => imports(file).filter((from) => /\/(keyed|tables)\//.test(from)).map((from) => `${file} -> ${from}`));
    expect(reaching).toEqual([]);
  });

  it('both faces build their tiers on the one core Stack', () => {
    for (const file of ['keyed/tiers.ts', 'tables/tiers.ts']) expect(readFileSync(new URL(file, src), 'utf8')).toMatch(/extends Stack</);
  });

  it('no source file passes 400 lines, and keyed/namespace.ts stays a thin reading', () => {
    const long = ['', 'core/', 'keyed/', 'tables/', 'l2/', 'coherence/'].flatMap(files).filter((file) => readFileSync(new URL(file, src), 'utf8').split('\n').length > 400);
    expect(long).toEqual([]);
    expect(readFileSync(new URL('keyed/namespace.ts', src), 'utf8').split('\n').length).toBeLessThan(320);
  });
});
