/**
 * The starters refuse an option they do not know before they start anything, naming the key and,
 * for the usual spellings, the option that means it.
 */
import { describe, expect, it } from 'vitest';
import { liveCount, startCluster, startLinkProxy, startRedis, startSentinel, UnknownTestkitOptionError } from '../src/index.js';

type Loose = Record<string, unknown>;

/** [label, the call, the refused key, a phrase of the hint (undefined: no hint)]. */
const rows: readonly [string, () => Promise<unknown>, string, string | undefined][] = [
  ['startRedis port', () => startRedis({ port: 6390 } as Loose), 'port', 'free port'],
  ['startRedis requirepass', () => startRedis({ requirepass: 'pw' } as Loose), 'requirepass', 'password here'],
  ['startRedis maxmemory', () => startRedis({ maxmemory: '10mb' } as Loose), 'maxmemory', "args: ['--maxmemory'"],
  ['startRedis typo', () => startRedis({ persistance: 'aof' } as Loose), 'persistance', undefined],
  ['startCluster nodes', () => startCluster({ nodes: 3 } as Loose), 'nodes', 'masters here'],
  ['startCluster replicas', () => startCluster({ replicas: 1 } as Loose), 'replicas', 'replicasPerMaster'],
  ['startSentinel name', () => startSentinel({ name: 'mymaster' } as Loose), 'name', 'masterName'],
  ['startSentinel quorum', () => startSentinel({ quorum: 2 } as Loose), 'quorum', 'majority'],
  ['startLinkProxy port', () => startLinkProxy({ target: { host: '127.0.0.1', port: 1 }, port: 7000 } as Loose as never), 'port', 'target: { host, port }'],
];

describe('strict testkit starters', () => {
  it.each(rows)('%s is refused and nothing starts', async (_label, call, key, hint) => {
    const before = liveCount();
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnknownTestkitOptionError);
    const refused = error as UnknownTestkitOptionError;
    expect(refused.option).toBe(key);
    if (hint === undefined) expect(refused.message).toContain('known:');
    else expect(refused.hint).toContain(hint);
    expect(liveCount()).toBe(before);
  });
});
