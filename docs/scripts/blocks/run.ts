import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { EmittedBlock } from './emit.js';
import type { BlockError } from './typecheck.js';

/** What a runnable block printed against what its ```text block says. */
export interface RunOutcome {
  readonly where: string;
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

const normalise = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim();

function runOne(file: string, cwd: string, redisUrl: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd,
      env: { ...process.env, REDIS_URL: redisUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr: timedOut ? `did not exit within ${String(timeoutMs)} ms (a handle left open?)\n${stderr}` : stderr });
    });
  });
}

/**
 * Runs each runnable block in its own Node process (tsx for the block, the packages' built `dist/`
 * as an installed app loads them: compiling the packages' sources in every process was most of the
 * docs test's time), one after another on the
 * same throwaway server with `REDIS_URL` set, emptied between blocks, and compares its stdout with
 * the block's ```text output. A block must exit by itself with code 0.
 */
export async function runBlocks(
  dir: string,
  emitted: readonly EmittedBlock[],
  server: { url: string; flush: () => Promise<void> },
  timeoutMs = 30_000,
): Promise<{ outcomes: RunOutcome[]; errors: BlockError[] }> {
  const outcomes: RunOutcome[] = [];
  const errors: BlockError[] = [];
  for (const e of emitted) {
    const where = `${e.block.file}:${String(e.block.line)}`;
    if (e.block.expected === undefined) {
      errors.push({ where, message: 'a `ts run` block needs a ```text block right after it with the output it prints' });
      continue;
    }
    await server.flush();
    const { code, stdout, stderr } = await runOne(join(dir, e.path), dir, server.url, timeoutMs);
    const ok = code === 0 && normalise(stdout) === normalise(e.block.expected);
    outcomes.push({ where, ok, stdout, stderr });
    if (code !== 0) {
      errors.push({ where, message: `exited with ${String(code)}\n${stderr}` });
    } else if (!ok) {
      errors.push({ where, message: `printed something else than its text block:\n--- expected\n${e.block.expected}\n--- printed\n${stdout}` });
    }
  }
  return { outcomes, errors };
}
