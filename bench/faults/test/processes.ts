import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '@echo/testkit';

/** The repository root, where `pnpm soak:faults` runs its script. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A process seen in /proc: its pid, its parent's and its command line. */
export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly command: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The command name sits in parentheses and may hold spaces: the fields after its last `)` are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined;
    const command = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(fields[1]), command };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`, found through /proc. */
export function descendants(root: number): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((p): p is ProcessInfo => p !== undefined);
  const found: ProcessInfo[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/**
 * The argv of a root package.json script, runnable without pnpm: `node` is this Node, any other
 * first word a binary of the root's node_modules/.bin.
 */
export function scriptArgv(name: string): [string, ...string[]] {
  const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
  const script = scripts[name];
  if (script === undefined) throw new Error(`no script ${name}`);
  const [bin, ...args] = script.split(/\s+/);
  if (bin === undefined) throw new Error(`empty script ${name}`);
  return [bin === 'node' ? process.execPath : `${ROOT}node_modules/.bin/${bin}`, ...args];
}

/** Resolves once `text` (tested against everything the process printed) shows up; rejects if it exits first. */
export function printed(child: ChildProcess, test: RegExp, timeoutMs: number): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not printed within ${String(timeoutMs)} ms: ${test.source}\n${seen}`)), timeoutMs);
    const on = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (test.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${String(code ?? signal)}) before printing ${test.source}:\n${seen}`));
    });
  });
}

/** Polls until none of `pids` is alive; answers those still alive after `timeoutMs`. */
export async function gone(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter((pid) => isProcessAlive(pid));
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Spawns argv in `cwd` with piped output. */
export function start(argv: readonly [string, ...string[]], options: { cwd: string; env?: NodeJS.ProcessEnv }): ChildProcess {
  const [bin, ...args] = argv;
  return spawn(bin, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
}
