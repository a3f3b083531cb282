/**
 * Exits 0 when the generated API reference (`api/`) is newer than everything it is made from (every
 * package's `src/`, the typedoc config and plugin), so `pnpm run site` skips typedoc on a rebuild
 * that changed only pages; exits 1 when typedoc must run. Plain JavaScript: no loader to start.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const docs = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(docs, 'api', 'typedoc-sidebar.json');
let newest = 0;
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else newest = Math.max(newest, statSync(path).mtimeMs);
  }
};
const packages = join(docs, '..', 'packages');
for (const pkg of readdirSync(packages)) if (existsSync(join(packages, pkg, 'src'))) walk(join(packages, pkg, 'src'));
for (const file of ['typedoc.json', 'tsconfig.typedoc.json', 'scripts/typedoc-names.mjs']) newest = Math.max(newest, statSync(join(docs, file)).mtimeMs);
const fresh = existsSync(stamp) && statSync(stamp).mtimeMs > newest;
if (fresh) process.stdout.write('api: the reference is newer than its sources; typedoc skipped\n');
process.exitCode = fresh ? 0 : 1;
