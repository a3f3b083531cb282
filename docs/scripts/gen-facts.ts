/**
 * Rewrites every generated block (see `generated/facts.ts`) in the README and the docs from the code.
 * Usage: `pnpm --filter @echo/docs run gen` (from anywhere); prints the files it changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { factFiles, facts, regenerate } from './generated/facts.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const values = facts(root);
for (const file of factFiles(root)) {
  const before = readFileSync(file, 'utf8');
  const after = regenerate(before, values, file);
  if (after !== before) {
    writeFileSync(file, after);
    console.log(`gen: ${relative(root, file)} rewritten`);
  }
}
