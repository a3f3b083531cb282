import { useRedis } from '@echo/testkit';
import { type Connection, MalformedIdError, cacheChannel, cacheKey, encodeId, mintId, type BrandedId } from '@echo/protocol/cache';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache, versioned } from '../src/index.js';
import { connect, sleep, tableName, until } from './helpers.js';

let conn: Connection;
let cache: Cache;
beforeAll(async () => {
  conn = await connect();
  cache = await Cache.open({ connection: conn });
});
afterAll(async () => {
  await cache.close();
  await conn.close();
});

const v = (s: bigint, ns = 'VER'): BrandedId => encodeId(ns, s);

describe('put (cache.md §5)', () => {
  it('writes L2 and L1 under a version minted now in the table kind, sending no coherence', async () => {
    const t = await cache.declare({ name: tableName('p'), kind: 'USR', loader: () => 'loaded', ttlMs: 30_000 });
    const id = mintId('USR');
    const listener = (await useRedis()).client();
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(cacheChannel(t.name));
    const version = await t.put(id, 'written');
    expect(version.startsWith('USR')).toBe(true);
    expect(((await conn.commandBuffer('GET', cacheKey(t.name, id))) as Buffer).toString()).toBe(`${version}"written"`);
    expect(Number(await conn.command('PTTL', cacheKey(t.name, id)))).toBeGreaterThan(29_000);
    expect(await t.fetch(id)).toEqual({ value: 'written', source: 'hit', version });
    await sleep(50);
    expect(heard).toEqual([]);
    listener.disconnect();
  });

  it('keeps a version the caller gives, and refuses a malformed one before writing', async () => {
    const t = await cache.declare({ name: tableName('p'), kind: 'USR', loader: () => 'x' });
    const id = mintId('USR');
    expect(await t.put(id, 'given', v(5n))).toBe(v(5n));
    expect(t.peek(id)?.version).toBe(v(5n));
    await expect(t.put(id, 'bad', 'nope' as BrandedId)).rejects.toThrow(MalformedIdError);
    expect(t.peek(id)?.value).toBe('given');
  });

  it('wins over a fill that read the older value while the put ran', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loading = false;
    const t = await cache.declare({
      name: tableName('p'),
      kind: 'USR',
      loader: async () => {
        loading = true;
        await gate;
        return versioned('old', v(1n));
      },
    });
    const id = mintId('USR');
    const filling = t.fetch(id);
    // The fill has read (its loader is running) before the racing write lands.
    await until(() => loading);
    await t.put(id, 'new', v(2n));
    release();
    expect(await filling).toMatchObject({ value: 'old', source: 'fill' });
    expect(t.peek(id)).toMatchObject({ value: 'new', version: v(2n) });
  });
});

describe('invalidate (cache.md §5)', () => {
  it('deletes the L2 key and the L1 row whatever their versions', async () => {
    let loads = 0;
    const t = await cache.declare({ name: tableName('inv'), kind: 'USR', loader: () => ++loads });
    const id = mintId('USR');
    await t.fetch(id);
    await t.invalidate(id);
    expect(t.peek(id)).toBeUndefined();
    expect(await conn.commandBuffer('GET', cacheKey(t.name, id))).toBeNull();
    expect(await t.fetch(id)).toMatchObject({ source: 'fill', value: 2 });
    // Invalidating an absent entry is harmless.
    await t.invalidate(mintId('USR'));
  });
});

describe('applyCoherence (cache.md §7.3)', () => {
  it('drops an older row once; the duplicate is stale', async () => {
    const t = await cache.declare({ name: tableName('coh'), kind: 'USR', loader: () => 'x' });
    const id = mintId('USR');
    await t.put(id, 'a', v(10n));
    expect(t.applyCoherence(id, v(9n))).toBe('stale');
    expect(t.applyCoherence(id, v(10n))).toBe('stale');
    expect(t.peek(id)).toBeDefined();
    expect(t.applyCoherence(id, v(11n))).toBe('applied');
    expect(t.peek(id)).toBeUndefined();
    expect(t.applyCoherence(id, v(11n))).toBe('stale');
    expect(t.stats()).toMatchObject({ cohApplied: 1, cohStale: 3 });
  });

  it('compares across namespaces by payload only', async () => {
    const t = await cache.declare({ name: tableName('coh'), kind: 'USR', loader: () => 'x' });
    const id = mintId('USR');
    await t.put(id, 'a', v(10n, 'ZZZ'));
    expect(t.applyCoherence(id, v(10n, 'AAA'))).toBe('stale');
    expect(t.applyCoherence(id, v(9n, 'ZZZ'))).toBe('stale');
    expect(t.applyCoherence(id, v(11n, 'AAA'))).toBe('applied');
  });

  it('counts stale when no row exists, and keeps a running fill from caching what the message outdated', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loading = false;
    const t = await cache.declare({
      name: tableName('coh'),
      kind: 'USR',
      loader: async () => {
        loading = true;
        await gate;
        return versioned('old', v(1n));
      },
    });
    const id = mintId('USR');
    const filling = t.fetch(id);
    // The fill has read (its loader is running) before the racing write lands.
    await until(() => loading);
    expect(t.applyCoherence(id, v(2n))).toBe('stale');
    release();
    expect(await filling).toMatchObject({ value: 'old' });
    expect(t.peek(id)).toBeUndefined();
  });

  it('refuses a version that is not a branded id', async () => {
    const t = await cache.declare({ name: tableName('coh'), kind: 'USR', loader: () => 'x' });
    expect(() => t.applyCoherence(mintId('USR'), 'bogus' as BrandedId)).toThrow(MalformedIdError);
  });
});

describe('conditional L2 drop: coherence_drop (cache.md §7.4)', () => {
  it('never removes a newer or equal L2 row, removes an older one', async () => {
    const t = await cache.declare({ name: tableName('drop'), kind: 'USR', loader: () => 'x' });
    const id = mintId('USR');
    const key = cacheKey(t.name, id);
    await t.put(id, 'current', v(100n));
    expect(await t.dropL2(id, v(99n))).toBe(false);
    expect(await t.dropL2(id, v(100n))).toBe(false);
    // Namespace is ignored here too: AAA sorts low, but its payload is older.
    expect(await t.dropL2(id, v(99n, 'ZZZ'))).toBe(false);
    expect(await conn.commandBuffer('GET', key)).not.toBeNull();
    expect(await t.dropL2(id, v(101n, 'AAA'))).toBe(true);
    expect(await conn.commandBuffer('GET', key)).toBeNull();
    expect(await t.dropL2(id, v(102n))).toBe(false);
  });

  it('drops a corrupt frame shorter than 14 bytes', async () => {
    const t = await cache.declare({ name: tableName('drop'), kind: 'USR', loader: () => 'x' });
    const id = mintId('USR');
    await conn.command('SET', cacheKey(t.name, id), 'short');
    expect(await t.dropL2(id, v(1n))).toBe(true);
    expect(await conn.commandBuffer('GET', cacheKey(t.name, id))).toBeNull();
  });

  it('leaves L1 alone: coherence_drop is the L2 half only', async () => {
    const t = await cache.declare({ name: tableName('drop'), kind: 'USR', loader: () => 'x' });
    const id = mintId('USR');
    await t.put(id, 'held', v(1n));
    expect(await t.dropL2(id, v(2n))).toBe(true);
    expect(t.peek(id)?.value).toBe('held');
  });
});
