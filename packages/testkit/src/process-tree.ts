import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isProcessAlive } from './process-utils.js';

/** A live process seen through `/proc`: its pid, its parent's, and its command line. */
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

/**
 * Every live descendant of `root` (children, their children, …), read from `/proc` (Linux only):
 * for a test that checks by pid what a script leaves behind, such as the servers a run started.
 */
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
 * Resolves with everything `child` printed (stdout and stderr) once it matches `test`; rejects when
 * the child exits first or after `timeoutMs`, with what it printed.
 */
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

/** Polls until none of `pids` is alive; answers those still alive after `timeoutMs` (none: all gone). */
export async function stillAlive(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter((pid) => isProcessAlive(pid));
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
