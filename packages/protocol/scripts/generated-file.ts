/**
 * The one way a generator in this folder writes its module: `--check` compares the rendered text with
 * what is committed (a missing file is stale too) and fails naming the command that regenerates it;
 * otherwise the file is written. Answers the process exit code.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function writeGenerated(file: URL, text: string, regenerate: string, argv: readonly string[]): number {
  const target = fileURLToPath(file);
  if (argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      // A missing module is stale too.
    }
    if (committed === text) return 0;
    process.stderr.write(`${target} is stale; run \`${regenerate}\`\n`);
    return 1;
  }
  mkdirSync(new URL('./', file), { recursive: true });
  writeFileSync(file, text);
  process.stdout.write(`wrote ${target}\n`);
  return 0;
}
