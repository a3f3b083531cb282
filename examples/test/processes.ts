/** How these tests start a root package.json script without pnpm, in the repository root. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root, where `pnpm demo` runs its script. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The argv of a root package.json script, runnable without pnpm: `node` is this Node, any other
 * first word a binary of the root's node_modules/.bin.
 */
export function scriptArgv(name: string): [string, ...string[]] {
  const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
  const script = scripts[name];
  if (script === undefined) throw new Error(`no script ${name}`);
  // `exec` (the demo script's, so the demo is pnpm's own child) is the shell's business, not a binary.
  const [bin, ...args] = script.replace(/^exec\s+/, '').split(/\s+/);
  if (bin === undefined) throw new Error(`empty script ${name}`);
  return [bin === 'node' ? process.execPath : `${ROOT}node_modules/.bin/${bin}`, ...args];
}

/** Spawns argv in `cwd` with piped output. */
export function start(argv: readonly [string, ...string[]], options: { cwd: string; env?: NodeJS.ProcessEnv }): ChildProcess {
  const [bin, ...args] = argv;
  return spawn(bin, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
}
