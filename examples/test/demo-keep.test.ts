import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('..', import.meta.url));

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

describe('pnpm demo --keep', () => {
  it('leaves its server and a dashboard up with an emq line, and stops both cleanly on SIGINT', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DEMO_JOBS: '100' };
    delete env.REDIS_URL; // the demo starts its own throwaway server
    const demo = spawn(process.execPath, ['--import', 'tsx', '--conditions=@echo/source', 'demo.ts', '--keep'], {
      cwd: here,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    demo.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exit = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
    const ready = new Promise<void>((resolve, reject) => {
      demo.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('Ctrl-C stops')) resolve();
      });
      void exit.then((code) => reject(new Error(`the demo exited (${String(code)}) before it was ready:\n${stdout}\n${stderr}`)));
    });
    try {
      await ready;
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

      demo.kill('SIGINT');
      expect(await exit).toBe(0);
      expect(stdout).toContain('SIGINT: stopping');
      const dashboardPort = Number(new URL(dashboardUrl ?? '').port);
      const redisPort = Number(new URL(redisUrl ?? '').port);
      expect(await listening('127.0.0.1', dashboardPort)).toBe(false);
      expect(await listening('127.0.0.1', redisPort)).toBe(false);
    } finally {
      if (demo.exitCode === null) demo.kill('SIGKILL');
    }
  }, 120_000);
});
