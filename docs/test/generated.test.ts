import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { queueAclRules } from '@echo/protocol';
import { factFiles, facts, regenerate } from '../scripts/generated/facts.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

describe('generated facts in the README and the docs', () => {
  it('every generated block says what the code answers now (else: pnpm --filter @echo/docs run gen)', () => {
    const values = facts(root);
    const stale: string[] = [];
    const seen = new Set<string>();
    for (const file of factFiles(root)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/<!-- generated:([a-z0-9-]+) -->/g)) seen.add(m[1] ?? '');
      if (regenerate(text, values, file) !== text) stale.push(relative(root, file));
    }
    expect(stale, 'run `pnpm --filter @echo/docs run gen`').toEqual([]);
    // Each fact is shown somewhere, so a block removed by mistake fails too.
    expect([...seen].sort()).toEqual(Object.keys(values).sort());
  });

  it("the README's queue user line is queueAclRules(['orders']) word for word", () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const line = readme.split('\n').find((l) => l.startsWith('ACL SETUSER orders on'));
    expect(line?.split(' ').slice(5)).toEqual(queueAclRules(['orders']));
  });

  it('a block that differs from the code is rewritten, and an unknown block name is refused', () => {
    const stale = 'x\n<!-- generated:acl-queue -->\nACL SETUSER orders on >secret +decr\n<!-- /generated:acl-queue -->\ny';
    const values = { 'acl-queue': 'fresh' };
    expect(regenerate(stale, values, 'f.md')).toBe('x\n<!-- generated:acl-queue -->\nfresh\n<!-- /generated:acl-queue -->\ny');
    expect(() => regenerate('<!-- generated:nope -->\n<!-- /generated:nope -->', values, 'f.md')).toThrow(/unknown generated block 'nope'/);
  });
});
