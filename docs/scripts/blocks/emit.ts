import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Block } from './extract.js';

/** A block written out as a module, and how its lines map back to the Markdown. */
export interface EmittedBlock {
  readonly block: Block;
  /** Path relative to the emit folder. */
  readonly path: string;
  /** Maps a 1-based line of the emitted file to `file:line` of the Markdown. */
  readonly origin: (line: number) => string;
}

/**
 * Writes each block as its own module (`<prelude>\n<code>\nexport {};`) under `dir/<sub>/`, named
 * after its file and line so a compiler message reads back to the source at a glance.
 */
export function emitBlocks(dir: string, sub: string, blocks: readonly Block[]): EmittedBlock[] {
  const folder = join(dir, sub);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return blocks.map((block, index) => {
    const name = `${String(index).padStart(3, '0')}-${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-${String(block.line)}.ts`;
    const header = `// ${block.file}:${String(block.line)}`;
    const preludeLines = block.prelude === '' ? 0 : block.prelude.split('\n').length;
    const parts = [header, ...(preludeLines > 0 ? [block.prelude] : []), block.code, 'export {};', ''];
    writeFileSync(join(folder, name), parts.join('\n'));
    const origin = (line: number): string => {
      const at = line - 2;
      if (at < preludeLines) return `${block.file}:${String(block.preludeLine + at)} (prelude)`;
      return `${block.file}:${String(block.line + at - preludeLines)}`;
    };
    return { block, path: `${sub}/${name}`, origin };
  });
}
