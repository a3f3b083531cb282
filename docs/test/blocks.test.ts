import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBlocks } from '../scripts/check-blocks.js';
import { collectBlocks, extractBlocks } from '../scripts/blocks/extract.js';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
/** Scratch output inside the workspace, so `@echo/*` resolve to the workspace packages as they do for real blocks. */
const scratches: string[] = [];
const scratch = (): string => {
  mkdirSync(join(docsDir, '.blocks'), { recursive: true });
  const dir = mkdtempSync(join(docsDir, '.blocks', 'self-'));
  scratches.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

describe('the code-block checker', () => {
  // One pass (one tsc run, one server) over every real block plus three planted ones: the real ones
  // must all pass, and the planted ones prove the checker can fail.
  it('passes every block of the docs and READMEs, and fails a wrong option and a wrong output at their Markdown lines', async () => {
    const run = (printed: string): string[] => [
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
      '',
    ];
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
      '',
      ...run('pending 1'), // line 14: prints what it says
      ...run('pending 2'), // line 27: does not
    ].join('\n');
    const planted = extractBlocks('page.md', page);
    expect(planted.map((b) => [b.line, b.mode, b.preludeLine])).toEqual([[7, 'check', 3], [16, 'run', 0], [29, 'run', 0]]);
    const root = resolve(docsDir, '..');
    const real = collectBlocks(root);
    expect(real.length).toBeGreaterThan(50);
    expect(real.filter((b) => b.mode === 'run').length).toBeGreaterThanOrEqual(6);
    const report = await checkBlocks({ root, blocks: [...real, ...planted], outDir: scratch() });
    expect(report.errors.map((e) => e.where)).toEqual(['page.md:8', 'page.md:29']);
    expect(report.ran).toBe(real.filter((b) => b.mode === 'run').length + 2);
    expect(report.errors[0]?.message).toContain("'delay'");
    expect(report.errors[1]?.message).toContain('--- printed\npending 1');
  }, 600_000); // about 40 runnable blocks, each on a server, on a loaded 2-core machine
});
