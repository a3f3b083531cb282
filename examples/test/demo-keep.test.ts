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

/** A job as the dashboard's API answers it (the fields this test reads). */
interface Job {
  readonly id: string;
  readonly name: string | null;
  readonly key: string | null;
  readonly history?: readonly { readonly outcome: string | null }[];
}

/** The demo's server and dashboard under `pid`. */
function held(pid: number): ProcessInfo[] {
  return descendants(pid).filter((p) => /redis-server|emq\.mjs dashboard/.test(p.command));
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

      // Every view of the dashboard has something to show, reached by the deep links the demo printed.
      const link = (what: string): string => new RegExp(`${what}\\s+(http://\\S+)`).exec(stdout)?.[1] ?? '';
      for (const what of ['completed jobs', 'dead jobs', 'attempt history', 'by business key', 'scheduler', 'stream dead letter', 'cache namespace']) {
        expect(link(what), what).toMatch(new RegExp(`^${dashboardUrl ?? ''}#/`));
      }
      const get = async <T>(path: string): Promise<T> => (await fetch(`${dashboardUrl ?? ''}api/${path}`)).json() as Promise<T>;
      const q = encodeURIComponent(queue ?? '');
      const completed = await get<{ total: number; jobs: Job[] }>(`queues/${q}/jobs?state=completed`);
      expect(completed.total).toBe(99); // every order but the poison one, retained
      expect(completed.jobs[0]?.name).toMatch(/^(ship-order|ship-bulky|charge-card)$/);
      expect(completed.jobs[0]?.key).toMatch(/^order-\d+$/);
      const poisonId = /\/job\/(\S+)$/.exec(link('attempt history'))?.[1] ?? '';
      const poison = await get<Job>(`queues/${q}/jobs/${poisonId}`);
      expect(poison.history?.map((a) => a.outcome)).toEqual(['retried', 'retried', 'failed']);
      const hits = await get<{ hits: { job: Job }[] }>(`queues/${q}/search?q=order-42`);
      expect(hits.hits.map((h) => h.job.id)).toEqual([poisonId]);
      const minutes = await get<{ minutes: { completed: number; failed: number }[] }>(`queues/${q}/minutes?last=5`);
      expect(minutes.minutes.reduce((n, m) => n + m.completed, 0)).toBeGreaterThanOrEqual(99);
      const reports = /#\/queue\/([^/]+)\/scheduled$/.exec(link('scheduler'))?.[1] ?? '';
      const fired = async (): Promise<number> => (await get<{ schedulers: { count: number }[] }>(`queues/${reports}/schedulers`)).schedulers[0]?.count ?? 0;
      await expect.poll(fired, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(1);
      const letters = await get<{ deadLetters: { reason: string }[] }>(`streams/${q}/audit/dead-letters`);
      expect(letters.deadLetters.map((d) => d.reason)).toEqual(['refund over the daily limit']);
      const ns = /#\/namespace\/(\S+)$/.exec(link('cache namespace'))?.[1] ?? '';
      const entries = await get<{ total: number; tags: { tag: string }[] }>(`namespaces/${ns}`);
      expect(entries.total).toBeGreaterThanOrEqual(3);
      expect(entries.tags.map((t) => t.tag)).toContain('region:eu');
      // A declared table's rows, found by their keys (the dashboard runs in a process of its own).
      const caches = await get<{ tables: { table: string; l2Rows: number }[] }>('caches');
      expect(caches.tables.find((t) => t.table.startsWith('demo.accounts.'))?.l2Rows).toBe(5);

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

describe('pnpm demo --keep, stopped by SIGINT', () => {
  /**
   * Starts `pnpm demo --keep` in a process group of its own (as a shell's foreground job), waits for
   * its ready line, sends SIGINT to `target(pnpm pid)` and checks that pnpm ends and that nothing it
   * started (the demo, its redis-server, its dashboard) is left.
   */
  async function interrupt(target: (pid: number) => number): Promise<void> {
    const pnpm = spawn('pnpm', ['demo', '--keep'], { cwd: ROOT, env: demoEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let everything: number[] = [];
    try {
      await printed(pnpm, READY, 90_000);
      everything = descendants(pnpm.pid ?? -1).map((p) => p.pid);
      expect(held(pnpm.pid ?? -1)).toHaveLength(2);
      const exited = once(pnpm, 'exit');
      process.kill(target(pnpm.pid ?? 0), 'SIGINT');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      // pnpm dies of the SIGINT itself (or exits 0 once its script did): either way it is gone.
      expect(code === 0 || signal === 'SIGINT').toBe(true);
      expect(await stillAlive(everything, 15_000)).toEqual([]);
    } finally {
      if (pnpm.pid !== undefined && isProcessAlive(pnpm.pid)) process.kill(-pnpm.pid, 'SIGKILL');
      for (const pid of everything) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }

  // The script execs node, so the demo is pnpm's own child: when pnpm dies of the signal, the demo
  // sees its parent gone and stops its server and dashboard (a shell in between would stay alive).
  it('to the pnpm process alone: pnpm ends and no redis-server or dashboard is left', async () => {
    await interrupt((pid) => pid);
  }, 150_000);

  // Ctrl-C in a terminal signals the whole foreground group: the redis-server and the dashboard get
  // the SIGINT too and stop under the demo, which must not wait for its server forever.
  it('to the whole group, as Ctrl-C in a terminal: pnpm ends and no redis-server or dashboard is left', async () => {
    await interrupt((pid) => -pid);
  }, 150_000);
});
