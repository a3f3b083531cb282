import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSentinel, type SentinelGroup } from '../src/index.js';

let group: SentinelGroup;

beforeAll(async () => {
  group = await startSentinel({ downAfterMs: 1_000 });
}, 60_000);

afterAll(async () => {
  await group.stop();
});

describe('startSentinel', () => {
  it('starts a primary, a replica and three sentinels that agree on the primary', async () => {
    expect(group.replicas).toHaveLength(1);
    expect(group.sentinels).toHaveLength(3);
    expect(await group.currentPrimary()).toBe(group.primary);
    const admin = group.sentinels[0]!.client();
    try {
      expect(await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', group.masterName)).toEqual(['127.0.0.1', String(group.primary.port)]);
    } finally {
      admin.disconnect();
    }
  });

  it('fails a SIGKILLed primary over to its replica, data included', async () => {
    const primary = group.primary.client();
    await primary.set('k', 'kept');
    // The write must reach the replica before the crash, or the failover legitimately loses it.
    expect(await primary.call('WAIT', 1, 2_000)).toBe(1);
    primary.disconnect();
    const failover = await group.failover({ timeoutMs: 20_000 });
    expect(failover.killed).toBe(group.primary);
    expect(failover.promoted).toBe(group.replicas[0]);
    expect(failover.healedAt - failover.killedAt).toBeLessThan(15_000);
    const promoted = failover.promoted.client();
    try {
      expect(await promoted.get('k')).toBe('kept');
      expect(await promoted.set('k2', 'writable')).toBe('OK');
    } finally {
      promoted.disconnect();
    }
    console.log(JSON.stringify({ sentinelFailoverMs: failover.healedAt - failover.killedAt }));
  }, 60_000);
});
