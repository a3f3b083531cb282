import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { TELEMETRY_HOOK_NAMES, emitHook, hooks, onHook } from './hooks.js';

describe('telemetry hooks', () => {
  it('are diagnostics channels under their exact names', () => {
    const all = [...Object.values(hooks.job), ...Object.values(hooks.stream), ...Object.values(hooks.cache)];
    expect(all.map((h) => h.name)).toEqual(TELEMETRY_HOOK_NAMES);
    expect(hooks.job.complete).toBe(channel('emq.job.complete'));
  });

  it('deliver to onHook and to a plain diagnostics_channel subscriber, and stop after unsubscribing', () => {
    const typed: number[] = [];
    const raw: unknown[] = [];
    const rawListener = (message: unknown): void => void raw.push(message);
    const off = onHook('emq.job.complete', (e) => typed.push(e.durationMs));
    subscribe('emq.job.complete', rawListener);
    const event = { queue: 'q', jobId: 'JOB0000000000001', attempt: 1, durationMs: 1234 };
    hooks.job.complete.publish(event);
    expect(typed).toEqual([1234]);
    expect(raw).toEqual([event]);
    off();
    unsubscribe('emq.job.complete', rawListener);
    expect(hooks.job.complete.hasSubscribers).toBe(false);
    hooks.job.complete.publish(event);
    expect(typed).toHaveLength(1);
  });

  it('build no payload when nobody listens', () => {
    let built = 0;
    const build = () => {
      built++;
      return { table: 't', key: 'k' };
    };
    emitHook(hooks.cache.miss, build);
    expect(built).toBe(0);
    const off = onHook('emq.cache.miss', () => undefined);
    emitHook(hooks.cache.miss, build);
    off();
    expect(built).toBe(1);
  });
});
