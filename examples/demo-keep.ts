/**
 * `pnpm demo --keep`: after the run, the demo's server stays up with what the demo wrote, and a
 * dashboard serves it (the `emq dashboard` command of @echo/cli, bundled, in a child process) until Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The bundled `emq` (what `pnpm emq` runs: no TypeScript loader, so the dashboard is up in about a second). */
const emqLauncher = fileURLToPath(new URL('../scripts/emq.mjs', import.meta.url));

/** A dashboard child process and the URL it serves. */
export interface KeptDashboard {
  readonly url: string;
  /** Stops the dashboard (SIGINT, as Ctrl-C would) and waits for it to exit. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Starts `emq dashboard --port 0` against `redisUrl`; resolves once it printed where it listens. */
export function startDashboard(redisUrl: string, timeoutMs = 30_000): Promise<KeptDashboard> {
  const child = spawn(process.execPath, [emqLauncher, 'dashboard', '--port', '0'], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    env: { ...process.env, REDIS_URL: redisUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Whatever way this process exits (a thrown error, process.exit), the dashboard goes with it.
  const orphanGuard = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', orphanGuard);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited(child);
    clearTimeout(killer);
    process.off('exit', orphanGuard);
  };
  return new Promise((resolve, reject) => {
    let printed = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the dashboard did not start within ${String(timeoutMs)} ms: ${printed}`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      printed += chunk;
      const url = /dashboard on (\S+?);/.exec(printed)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the dashboard exited with ${String(code)} before it started: ${printed}`));
    });
  });
}

/**
 * The process that started the demo, read when this module loads: the demo's run takes a while, and
 * a starter that died during it must still count as gone (read when the wait began, the parent was
 * already init, and the demo waited for a signal that never came, holding its server and dashboard).
 * A starter gone before this module loads (the first seconds, while tsx compiles) is not seen.
 */
const startedBy = process.ppid;

/** Why the kept demo stops: a signal, or the process that started it is gone. */
export type StopReason = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'orphaned';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves with the first SIGINT, SIGTERM or SIGHUP this process receives, or `orphaned` once the
 * process that started it is gone: `pnpm demo` answers SIGTERM by killing its shell and exiting,
 * which would leave the demo, its server and its dashboard running with nobody to stop them.
 */
export function nextStop(pollMs = 500): Promise<StopReason> {
  return new Promise((resolve) => {
    const done = (reason: StopReason): void => {
      clearInterval(poll);
      for (const signal of STOP_SIGNALS) process.off(signal, done);
      resolve(reason);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, done);
    const poll = setInterval(() => {
      if (process.ppid !== startedBy) done('orphaned');
    }, pollMs);
  });
}
