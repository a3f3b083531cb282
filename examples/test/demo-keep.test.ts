/**
 * `pnpm demo --keep` leaves its server and a dashboard up, and stops both on SIGINT to the process
 * its script starts, or once the process that started it is gone. Each test starts the demo with
 * the root script's command, as `pnpm demo` does, and checks by pid that nothing survives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { descendants, isProcessAlive, printed, stillAlive, type ProcessInfo } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { ROOT, scriptArgv, start } from './processes.js';

/** Resolves true when something accepts a TCP connection on `host:port`. */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The demo's own environment: a small run on a throwaway server. */
function demoEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DEMO_JOBS: '100' };
  delete env.REDIS_URL; // the demo starts its own throwaway server
  return env;
}

const READY = /Ctrl-C stops/;

/** The demo's server and dashboard under `pid`. */
function held(pid: number): ProcessInfo[] {
  return descendants(pid).filter((p) => /redis-server|bin\.ts dashboard/.test(p.command));
}

function killAll(child: ChildProcess, pids: readonly number[]): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
}

describe('pnpm demo --keep', () => {
  it('leaves its server and a dashboard up with an emq line, and stops both cleanly on SIGINT', async () => {
    const demo = start([...scriptArgv('demo'), '--keep'], { cwd: ROOT, env: demoEnv() });
    let everything: number[] = [];
    try {
      const stdout = await printed(demo, READY, 90_000);
      everything = descendants(demo.pid ?? -1).map((p) => p.pid);
      const pids = held(demo.pid ?? -1).map((p) => p.pid);
      // The server and the dashboard's process.
      expect(pids).toHaveLength(2);
      const dashboardUrl = /dashboard\s+(http:\/\/\S+)/.exec(stdout)?.[1];
      const redisUrl = /server\s+(redis:\/\/\S+)/.exec(stdout)?.[1];
      const queue = /emq jobs (\S+) --state dead/.exec(stdout)?.[1];
      expect(dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(stdout).toContain(`REDIS_URL=${redisUrl ?? ''} pnpm --silent emq jobs ${queue ?? ''} --state dead`);
      expect(stdout).toContain('Cache (keyed namespace)');

      const page = await fetch(dashboardUrl ?? '');
      expect(page.status).toBe(200);
      // The dashboard sees what the demo left: its queue, with the poison order dead-lettered.
      const api = (await (await fetch(`${dashboardUrl ?? ''}api/queues`)).json()) as { queues: { name: string; counts: { dead: number } }[] };
      expect(api.queues.find((q) => q.name === queue)?.counts.dead).toBe(1);

      let after = '';
      demo.stdout?.on('data', (chunk: Buffer) => (after += chunk.toString()));
      const exited = once(demo, 'exit');
      demo.kill('SIGINT');
      expect((await exited)[0]).toBe(0);
      expect(after).toContain('SIGINT: stopping');
      expect(await stillAlive(pids, 10_000)).toEqual([]);
      expect(await listening('127.0.0.1', Number(new URL(dashboardUrl ?? '').port))).toBe(false);
      expect(await listening('127.0.0.1', Number(new URL(redisUrl ?? '').port))).toBe(false);
    } finally {
      killAll(demo, everything);
    }
  }, 150_000);

  it('stops its server and dashboard once the process that started it is gone (pnpm answers SIGTERM by killing its shell)', async () => {
    // A shell between, as pnpm runs a script; `; exit` keeps it from exec'ing the demo in its place.
    const command = [...scriptArgv('demo'), '--keep'].map((a) => `'${a}'`).join(' ');
    const shell = spawn('/bin/sh', ['-c', `${command}; exit $?`], { cwd: ROOT, env: demoEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let everything: number[] = [];
    try {
      await printed(shell, READY, 90_000);
      everything = descendants(shell.pid ?? -1).map((p) => p.pid);
      const demoPid = descendants(shell.pid ?? -1).find((p) => p.ppid === shell.pid)?.pid ?? -1;
      const pids = [demoPid, ...held(shell.pid ?? -1).map((p) => p.pid)];
      expect(pids).toHaveLength(3);
      shell.kill('SIGKILL');
      expect(await stillAlive(pids, 30_000)).toEqual([]);
    } finally {
      killAll(shell, everything);
    }
  }, 150_000);
});
