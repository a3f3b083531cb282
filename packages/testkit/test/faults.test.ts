import { spawn } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aofRestartFault,
  clientPauseFault,
  clockJumpFault,
  InjectedClock,
  isProcessAlive,
  linkFault,
  memoryFullFault,
  planFaults,
  processKillFault,
  runFaults,
  startLinkProxy,
  startRedis,
  waitFor,
  type Fault,
  type RedisServer,
} from '../src/index.js';

describe('planFaults', () => {
  it('draws the same schedule from the same seed, one fault at a time within the duration', () => {
    const options = { seed: 7, durationMs: 60_000, kinds: ['a', 'b', 'c'], gapMs: [500, 1_000], holdMs: [200, 400] } as const;
    const steps = planFaults(options);
    expect(planFaults(options)).toEqual(steps);
    expect(planFaults({ ...options, seed: 8 })).not.toEqual(steps);
    expect(new Set(steps.map((s) => s.kind))).toEqual(new Set(['a', 'b', 'c']));
    for (let i = 1; i < steps.length; i++) {
      const [prev, step] = [steps[i - 1], steps[i]] as [(typeof steps)[0], (typeof steps)[0]];
      expect(step.atMs - (prev.atMs + prev.holdMs)).toBeGreaterThanOrEqual(500);
      expect(step.holdMs).toBeGreaterThanOrEqual(200);
    }
    expect(steps.at(-1)?.atMs).toBeLessThan(60_000);
  });
});

describe('runFaults', () => {
  it('refuses a schedule naming a kind it has no fault for, before injecting anything', async () => {
    let injected = 0;
    const fault: Fault = {
      kind: 'x',
      inject: () => {
        injected++;
        return Promise.resolve();
      },
      heal: () => Promise.resolve(),
    };
    await expect(runFaults([{ atMs: 0, kind: 'x', holdMs: 0 }, { atMs: 1, kind: 'y', holdMs: 0 }], { x: fault })).rejects.toThrow(/no fault for kind y/);
    expect(injected).toBe(0);
  });

  it('injects and heals each step in turn, counts by kind, and records a failing inject without stopping', async () => {
    const log: string[] = [];
    const ok: Fault = { kind: 'ok', inject: () => Promise.resolve(void log.push('inject ok')), heal: () => Promise.resolve(void log.push('heal ok')) };
    const bad: Fault = { kind: 'bad', inject: () => Promise.reject(new Error('boom')), heal: () => Promise.resolve(void log.push('heal bad')) };
    const run = await runFaults(
      [
        { atMs: 0, kind: 'ok', holdMs: 20 },
        { atMs: 40, kind: 'bad', holdMs: 10 },
        { atMs: 60, kind: 'ok', holdMs: 10 },
      ],
      { ok, bad },
    );
    expect(log).toEqual(['inject ok', 'heal ok', 'heal bad', 'inject ok', 'heal ok']);
    expect(run.injected).toEqual({ ok: 2 });
    expect(run.failed).toBe(1);
    expect(run.steps[1]?.error).toBe('inject: boom');
    expect(run.skipped).toEqual({});
  });

  it('skips the steps mayStart refuses when their turn comes, late ones behind a slow heal', async () => {
    const log: string[] = [];
    const slow: Fault = { kind: 'slow', inject: () => Promise.resolve(void log.push('inject slow')), heal: () => new Promise((resolve) => setTimeout(() => resolve(void log.push('heal slow')), 200)) };
    const quick: Fault = { kind: 'quick', inject: () => Promise.resolve(void log.push('inject quick')), heal: () => Promise.resolve(void log.push('heal quick')) };
    const asked: [string, number][] = [];
    const run = await runFaults(
      [
        { atMs: 0, kind: 'slow', holdMs: 0 },
        { atMs: 10, kind: 'quick', holdMs: 0 },
        { atMs: 20, kind: 'quick', holdMs: 0 },
      ],
      { slow, quick },
      {
        // The slow heal pushes both quick steps past 150 ms: the bound drops them.
        mayStart: (step, elapsedMs) => {
          asked.push([step.kind, elapsedMs]);
          return elapsedMs < 150;
        },
      },
    );
    expect(log).toEqual(['inject slow', 'heal slow']);
    expect(run.skipped).toEqual({ quick: 2 });
    expect(run.injected).toEqual({ slow: 1 });
    expect(asked.map(([kind]) => kind)).toEqual(['slow', 'quick', 'quick']);
    expect(asked[1]?.[1]).toBeGreaterThanOrEqual(200);
  });
});

describe('fault injectors on a real server', () => {
  let server: RedisServer;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedis({ persistence: 'aof' });
    client = server.client();
  });
  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });

  it('clientPauseFault stalls commands until the pause ends, and heal waits for that', async () => {
    const fault = clientPauseFault(server, { pauseMs: 800 });
    await fault.inject();
    let answered = false;
    const pending = client.set('paused', '1').then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    await fault.heal();
    await pending;
    expect(answered).toBe(true);
  });

  it('memoryFullFault makes writes fail with OOM until healed', async () => {
    const fault = memoryFullFault(server);
    await fault.inject();
    await expect(client.set('big', 'x'.repeat(10_000))).rejects.toThrow(/OOM/);
    await fault.heal();
    expect(await client.set('big', 'x')).toBe('OK');
  });

  it('aofRestartFault kills the server and brings it back with its acknowledged writes', async () => {
    await client.set('durable', 'yes');
    const pid = server.pid;
    const fault = aofRestartFault(server);
    await fault.inject();
    expect(server.running).toBe(false);
    await fault.heal();
    expect(server.pid).not.toBe(pid);
    await waitFor(async () => (await client.get('durable').catch(() => null)) === 'yes', { timeoutMs: 10_000 });
  });

  it('linkFault blackhole: a client through the proxy hears nothing until healed', async () => {
    const proxy = await startLinkProxy({ target: server });
    const through = server.client({ port: proxy.port, commandTimeout: 300, maxRetriesPerRequest: 0 });
    try {
      await through.ping();
      const fault = linkFault(proxy, 'blackhole');
      await fault.inject();
      await expect(through.ping()).rejects.toThrow(/timed out/);
      await fault.heal();
      expect(proxy.mode.kind).toBe('open');
    } finally {
      through.disconnect();
      await proxy.close();
    }
  });
});

describe('fault injectors without a server', () => {
  it('clockJumpFault moves the injected clock and heal puts it back', async () => {
    const clock = new InjectedClock();
    const fault = clockJumpFault(clock, 60_000);
    expect(fault.kind).toBe('clock-jump-forward');
    await fault.inject();
    expect(clock.now() - Date.now()).toBeGreaterThanOrEqual(59_990);
    await fault.heal();
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(10);
  });

  it('processKillFault SIGKILLs one of the workload’s children and heal asks for a replacement', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = child.pid as number;
    const respawned: number[] = [];
    const fault = processKillFault({ pids: () => [pid], respawn: (gone) => Promise.resolve(void respawned.push(gone)) });
    await fault.inject();
    await waitFor(() => !isProcessAlive(pid), { timeoutMs: 5_000 });
    await fault.heal();
    expect(respawned).toEqual([pid]);
  });
});
