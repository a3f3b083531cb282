/**
 * The package's shape: one stack in `core/` that both faces stand on and that knows neither of them,
 * faces that stay thin readings of it, and imports that run one way (the repository's lint rule
 * `echo/layers` says the same once it covers the cache).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const src = new URL('../src/', import.meta.url);
/** The folders of src/, lowest layer first: a folder may import the ones before it. */
const LAYERS = ['base', 'l2', 'coherence', 'core', 'keyed', 'tables'];
const FOLDERS = ['', ...LAYERS.map((folder) => `${folder}/`)];
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
    const long = FOLDERS.flatMap(files).filter((file) => readFileSync(new URL(file, src), 'utf8').split('\n').length > 400);
    expect(long).toEqual([]);
    expect(readFileSync(new URL('keyed/namespace.ts', src), 'utf8').split('\n').length).toBeLessThan(300);
  });

  it('imports run one way: never up to a file of an ancestor folder, sideways only down base < l2 < coherence < core < keyed < tables', () => {
    const wrong = FOLDERS.flatMap(files).flatMap((file) =>
      imports(file)
        .filter((from) => from.startsWith('.'))
        .map((from) => ({ from, to: new URL(from, new URL(file, src)).pathname.slice(src.pathname.length) }))
        .filter(({ to }) => {
          const [mine, theirs] = [file.split('/'), to.split('/')];
          // A module at src/ composes the families; a file of src/ itself is an ancestor of every folder.
          if (mine.length === 1) return false;
          if (theirs.length === 1) return true;
          return mine[0] !== theirs[0] && LAYERS.indexOf(theirs[0] as string) >= LAYERS.indexOf(mine[0] as string);
        })
        .map(({ from }) => `${file} -> ${from}`),
    );
    expect(wrong).toEqual([]);
  });
});
