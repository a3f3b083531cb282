import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendants, printed, stillAlive, waitFor } from '../src/index.js';

describe('process tree helpers', () => {
  it('finds a grandchild by pid, reads what the child printed, and sees both gone after a kill', async () => {
    // A shell whose own child sleeps: the sleep is a grandchild of this process.
    const child = spawn('sh', ['-c', 'sleep 30 & echo "started $!"; wait'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = await printed(child, /started \d+/, 10_000);
    const sleeper = Number(/started (\d+)/.exec(out)?.[1]);
    // The shell prints the pid right after its fork; on a loaded machine the forked child may not
    // have exec'd `sleep` yet (it still reads as the shell's command line), so wait for the exec.
    await waitFor(() => descendants(process.pid).find((p) => p.pid === sleeper)?.command === 'sleep 30', { what: 'the grandchild to exec sleep' });
    const tree = descendants(process.pid);
    expect(tree.map((p) => p.pid)).toEqual(expect.arrayContaining([child.pid, sleeper]));
    expect(tree.find((p) => p.pid === sleeper)).toMatchObject({ ppid: child.pid, command: 'sleep 30' });
    expect(await stillAlive([sleeper], 0)).toEqual([sleeper]);
    process.kill(sleeper, 'SIGKILL');
    expect(await stillAlive([sleeper, child.pid as number], 10_000)).toEqual([]);
  });

  it('rejects when the child exits before printing what was awaited', async () => {
    const child = spawn('sh', ['-c', 'echo nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await expect(printed(child, /never/, 10_000)).rejects.toThrow(/exited \(0\) before printing never/);
  });
});
