import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../src/index.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('fixtures/orphan-child.ts', import.meta.url));

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What each test started, so a failing test does not leave its host or server running. */
const spawned: { host: ChildProcess; serverPid?: number; dir?: string }[] = [];

afterEach(() => {
  for (const { host, serverPid, dir } of spawned.splice(0)) {
    if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
    if (serverPid !== undefined && isProcessAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
});

interface HostRun {
  readonly pid: number;
  readonly dir: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly signal: (name: NodeJS.Signals) => void;
  /** Rejects if the host is still running 15 s later, so a regression fails rather than hangs. */
  readonly exited: () => Promise<Exit>;
}

/**
 * Runs the fixture as a separate Node program (tsx for TypeScript, `@echo/source` so the package
 * resolves to its own src) and resolves once it has printed its server's pid.
 */
function runHost(mode: string): Promise<HostRun> {
  const child = spawn(process.execPath, ['--conditions=@echo/source', '--import', 'tsx', fixture, mode], {
    cwd: packageRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const record: (typeof spawned)[number] = { host: child };
  spawned.push(record);
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const exited = (): Promise<Exit> =>
    Promise.race([
      exit,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`host still running:\n${err}`)), 15_000).unref()),
    ]);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
      if (line === undefined) return;
      const { pid, dir } = JSON.parse(line) as { pid: number; dir: string };
      record.serverPid = pid;
      record.dir = dir;
      resolve({ pid, dir, stdout: () => out, stderr: () => err, signal: (name) => child.kill(name), exited });
    });
    void exit.then(({ code, signal }) => reject(new Error(`host exited (${code ?? signal}) before printing a pid:\n${err}`)));
  });
}

/** The server is reparented to init when its host dies; a zombie awaiting reaping counts as gone. */
async function expectGone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(isProcessAlive(pid), `redis-server ${pid} outlived its host`).toBe(false);
}

// Each test starts a Node + tsx host process: slow to boot on a loaded machine, hence the long timeout.
describe('no orphaned servers', { timeout: 60_000 }, () => {
  it('kills the server when the host dies of an uncaught exception', async () => {
    const host = await runHost('throw');
    expect(isProcessAlive(host.pid)).toBe(true);
    host.signal('SIGUSR2');
    expect(await host.exited()).toEqual({ code: 1, signal: null });
    expect(host.stderr()).toContain('boom: uncaught on purpose');
    await expectGone(host.pid);
    expect(existsSync(host.dir)).toBe(false);
  });

  it('kills the server when the host calls process.exit(1)', async () => {
    const host = await runHost('exit');
    expect(await host.exited()).toEqual({ code: 1, signal: null });
    await expectGone(host.pid);
    expect(existsSync(host.dir)).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('kills the server on %s and lets the signal end the host', async (signal) => {
    const host = await runHost('wait');
    expect(isProcessAlive(host.pid)).toBe(true);
    host.signal(signal);
    // Re-raised, not swallowed: the host dies by the signal, as it would without the testkit.
    expect(await host.exited()).toEqual({ code: null, signal });
    await expectGone(host.pid);
    expect(existsSync(host.dir)).toBe(false);
  });

  it('leaves a signal the host handles itself to the host, then cleans up at exit', async () => {
    const host = await runHost('host-handler');
    host.signal('SIGTERM');
    expect(await host.exited()).toEqual({ code: 0, signal: null });
    expect(host.stdout()).toContain('host-handled');
    await expectGone(host.pid);
    expect(existsSync(host.dir)).toBe(false);
  });
});
