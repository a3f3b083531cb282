/**
 * The fault run gives back what it started on every way out. Each test starts the run the way
 * `pnpm soak:faults` does (the root script's command), waits until its servers and a worker process
 * are up, stops it from outside, and checks by pid that none of them survives.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { descendants, isProcessAlive, printed, stillAlive, type ProcessInfo } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { ROOT, scriptArgv, start } from './processes.js';

const RUN_ARGS = ['--seconds', '120', '--children', '1', '--gap-ms', '2000'];
/** Printed once the servers, the connections, the workload and its worker process are up. */
const RUNNING = /faults: standalone, 120 s/;

/** The redis-servers and worker processes under `pid`. */
function held(pid: number): ProcessInfo[] {
  const under = descendants(pid);
  return under.filter((p) => /redis-server|worker-child/.test(p.command));
}

/** Test cleanup when an assertion failed midway: whatever is left of what the test started. */
function killAll(pids: readonly number[]): void {
  for (const pid of pids) if (pid > 0 && isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
}

describe('the fault run', () => {
  it('stops its servers and worker processes and exits 130 on SIGINT to the process the script starts', async () => {
    const run = start([...scriptArgv('soak:faults'), ...RUN_ARGS], { cwd: ROOT });
    let everything: number[] = [];
    try {
      await printed(run, RUNNING, 90_000);
      everything = descendants(run.pid ?? -1).map((p) => p.pid);
      const pids = held(run.pid ?? -1).map((p) => p.pid);
      // A standalone run: the server and one worker process.
      expect(pids.length).toBeGreaterThanOrEqual(2);
      const exited = once(run, 'exit');
      run.kill('SIGINT');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(130);
      expect(await stillAlive(pids, 10_000)).toEqual([]);
    } finally {
      killAll([run.pid ?? -1, ...everything]);
    }
  }, 150_000);

  it('stops when the process that started it is gone (pnpm answers SIGTERM by killing its shell)', async () => {
    // A shell between, as pnpm runs a script; `; exit` keeps it from exec'ing the run in its place.
    const command = [...scriptArgv('soak:faults'), ...RUN_ARGS].map((a) => `'${a}'`).join(' ');
    const shell = spawn('/bin/sh', ['-c', `${command}; exit $?`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let everything: number[] = [];
    try {
      await printed(shell, RUNNING, 90_000);
      const under = descendants(shell.pid ?? -1);
      everything = under.map((p) => p.pid);
      const runPid = under.find((p) => p.ppid === shell.pid)?.pid ?? -1;
      const pids = held(shell.pid ?? -1).map((p) => p.pid);
      expect(pids.length).toBeGreaterThanOrEqual(2);
      shell.kill('SIGKILL');
      expect(await stillAlive([runPid, ...pids], 30_000)).toEqual([]);
    } finally {
      killAll([shell.pid ?? -1, ...everything]);
    }
  }, 150_000);
});
