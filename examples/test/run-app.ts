import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What one example app printed and how it ended. */
export interface AppRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const here = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs one example app (a path under `examples/`) as a user would, in its own Node process through
 * tsx, against `redisUrl`; resolves when it exits. The app must exit by itself: a handle left open
 * is a defect the timeout reports.
 */
export function runApp(app: string, redisUrl: string, timeoutMs = 60_000): Promise<AppRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@echo/source', app], {
      cwd: here,
      env: { ...process.env, REDIS_URL: redisUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${app} did not exit within ${String(timeoutMs)} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
