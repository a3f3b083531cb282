import { mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkBlocks } from '../scripts/check-blocks.js';
import { extractBlocks } from '../scripts/blocks/extract.js';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
/** Scratch output inside the workspace, so `@echo/*` resolve from source as they do for real blocks. */
const scratch = (): string => mkdtempSync(join(docsDir, '.blocks', 'self-'));

describe('the code-block checker', () => {
  it('passes every block of the docs and of every README (type-check, and the runnable ones run)', async () => {
    const report = await checkBlocks();
    expect(report.errors.map((e) => `${e.where}: ${e.message}`)).toEqual([]);
    expect(report.checked).toBeGreaterThan(30);
    expect(report.ran).toBeGreaterThanOrEqual(3);
  }, 240_000);

  it('reports a wrong option at its Markdown line, and reads a prelude', async () => {
    const page = [
      '# A page',
      '',
      '<!-- prelude:',
      "import { Queue } from '@echo/queue';",
      '-->',
      '```ts',
      "const q = await Queue.open('orders', { connect: 'redis://127.0.0.1:1' });",
      "await q.enqueue({ sku: 'A1' }, { delay: 5_000 });",
      '```',
      '',
      '```ts peer',
      "await queue.add('x', {}, { delay: 5_000 }); // BullMQ's: not checked",
      '```',
    ].join('\n');
    const blocks = extractBlocks('page.md', page);
    expect(blocks.map((b) => [b.line, b.mode, b.preludeLine])).toEqual([[7, 'check', 3]]);
    const report = await checkBlocks({ root: resolve(docsDir, '..'), blocks, outDir: scratch() });
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]?.where).toBe('page.md:8');
    expect(report.errors[0]?.message).toContain("'delay'");
  }, 60_000);

  it('fails a runnable block whose output differs from its text block, and passes the right one', async () => {
    const page = (printed: string): string =>
      [
        '```ts run',
        "import { Queue } from '@echo/queue';",
        "const q = await Queue.open('docs-selftest', { connect: process.env.REDIS_URL });",
        "await q.enqueue({ n: 1 }, { dedupId: 'one' });",
        "await q.enqueue({ n: 1 }, { dedupId: 'one' });",
        "console.log('pending', (await q.counts('pending')).pending);",
        'await q.close();',
        '```',
        '',
        '```text',
        printed,
        '```',
      ].join('\n');
    const right = await checkBlocks({ blocks: extractBlocks('run.md', page('pending 1')), outDir: scratch() });
    expect(right.errors).toEqual([]);
    expect(right.ran).toBe(1);
    const wrong = await checkBlocks({ blocks: extractBlocks('run.md', page('pending 2')), outDir: scratch() });
    expect(wrong.errors).toHaveLength(1);
    expect(wrong.errors[0]?.where).toBe('run.md:2');
    expect(wrong.errors[0]?.message).toContain('pending 1');
  }, 60_000);
});
