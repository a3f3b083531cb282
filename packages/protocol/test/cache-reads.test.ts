import { useRedis, type RedisTarget } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aclName } from './acl-names.js';
import { Connection, InvalidArgumentError, InvalidNameError, MalformedReplyError, cacheAclRules, cacheEntryKey, mintId, reads, writes } from './support.js';

const id = mintId('USR');

describe('the cache reads and writes build their argument shapes without a server', () => {
  it('GET and MGET of frames ask for buffers', () => {
    const get = reads.cacheRowGet({ table: 'users', id });
    expect([get.command, get.args, get.buffers]).toEqual(['GET', [`ecc:{users}:${id}`], true]);
    const keys = [cacheEntryKey('ns', 'a'), cacheEntryKey('ns', 'b')];
    const mget = reads.cacheFramesGet({ keys });
    expect([mget.command, mget.args, mget.buffers]).toEqual(['MGET', keys, true]);
  });

  it('HKEYS and SCAN name the namespace keys', () => {
    const hkeys = reads.cacheTagMembers({ namespace: 'ns', tag: 'red' });
    expect([hkeys.command, hkeys.args]).toEqual(['HKEYS', ['ecc:{ns}:tag:red']]);
    const scan = reads.cacheEntryScan({ namespace: 'ns', cursor: '0', count: 500 });
    expect([scan.command, scan.args]).toEqual(['SCAN', ['0', 'MATCH', 'ecc:{ns}:k:*', 'COUNT', '500']]);
  });

  it('SET, DEL and PUBLISH carry a table row and its channel', () => {
    const frame = Buffer.from(`${id}v`);
    const set = writes.cacheRowSet({ table: 'users', id, frame, ttlMs: 1000 });
    expect([set.command, set.args]).toEqual(['SET', [`ecc:{users}:${id}`, frame, 'PX', '1000']]);
    const del = writes.cacheRowDelete({ table: 'users', id });
    expect([del.command, del.args]).toEqual(['DEL', [`ecc:{users}:${id}`]]);
    const pub = writes.cacheCoherencePublish({ table: 'users', message: `${id}:${id}` });
    expect([pub.command, pub.args]).toEqual(['PUBLISH', ['ecc:{users}:coh', `${id}:${id}`]]);
  });

  it('refuses bad input before anything is sent', () => {
    expect(() => reads.cacheFramesGet({ keys: [] })).toThrow(InvalidArgumentError);
    expect(() => reads.cacheFramesGet({ keys: ['emq:{q}:x'] })).toThrow(InvalidArgumentError);
    expect(() => reads.cacheEntryScan({ namespace: 'ns', cursor: 'x', count: 1 })).toThrow(InvalidArgumentError);
    expect(() => reads.cacheEntryScan({ namespace: 'ns', cursor: '0', count: 0 })).toThrow(InvalidArgumentError);
    expect(() => reads.cacheTagMembers({ namespace: 'bad name', tag: 't' })).toThrow(InvalidNameError);
    expect(() => writes.cacheRowSet({ table: 'users', id, frame: Buffer.alloc(0), ttlMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => writes.cacheRowSet({ table: 'users', id, frame: Buffer.from('x'), ttlMs: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => writes.cacheCoherencePublish({ table: 'users', message: '' })).toThrow(InvalidArgumentError);
  });

  it('their parsers refuse replies of another shape', () => {
    expect(() => reads.cacheRowGet({ table: 'users', id }).parse('text')).toThrow(MalformedReplyError);
    expect(() => reads.cacheFramesGet({ keys: [cacheEntryKey('ns', 'a')] }).parse([null, null])).toThrow(MalformedReplyError);
    expect(() => reads.cacheEntryScan({ namespace: 'ns', cursor: '0', count: 1 }).parse(['0', ['ecc:{other}:k:a']])).toThrow(MalformedReplyError);
    expect(() => reads.cacheTagMembers({ namespace: 'ns', tag: 't' }).parse('x')).toThrow(MalformedReplyError);
    expect(() => writes.cacheRowSet({ table: 'users', id, frame: Buffer.from('x'), ttlMs: 1 }).parse(null)).toThrow(MalformedReplyError);
    expect(() => writes.cacheRowDelete({ table: 'users', id }).parse(2)).toThrow(MalformedReplyError);
    expect(() => writes.cacheCoherencePublish({ table: 'users', message: 'm' }).parse('1')).toThrow(MalformedReplyError);
  });

});

describe('the cache reads and writes and the ACL rules generated from them', () => {
  const builtReads = [
    reads.cacheRowGet({ table: 'users', id }),
    reads.cacheFramesGet({ keys: [cacheEntryKey('ns', 'a')] }),
    reads.cacheTagMembers({ namespace: 'ns', tag: 't' }),
    reads.cacheEntryScan({ namespace: 'ns', cursor: '0', count: 1 }),
  ];
  const builtWrites = [
    writes.cacheRowSet({ table: 'users', id, frame: Buffer.from('x'), ttlMs: 1 }),
    writes.cacheRowDelete({ table: 'users', id }),
    writes.cacheCoherencePublish({ table: 'users', message: 'm' }),
  ];

  // The generator reads the builders' literals; this checks what each really sends is granted.
  it('are granted by the cache ACL rules', () => {
    const rules = cacheAclRules(['users']);
    for (const r of [...builtReads, ...builtWrites]) expect(rules, r.command).toContain(`+${aclName(r)}`);
  });
});

describe('the cache reads and writes against a live server', () => {
  let target: RedisTarget;
  let conn: Connection;
  beforeAll(async () => {
    target = await useRedis();
    conn = await Connection.connect(target.url);
  });
  afterAll(async () => {
    await conn.close();
  });

  it('a row written, read, walked and deleted comes back as it went in', async () => {
    const frame = Buffer.concat([Buffer.from(id, 'latin1'), Buffer.from([0xff, 0x00, 0x80])]);
    await writes.sendWrite(conn, writes.cacheRowSet({ table: 'users', id, frame, ttlMs: 10_000 }));
    expect(await reads.sendRead(conn, reads.cacheRowGet({ table: 'users', id }))).toEqual(frame);
    expect(await writes.sendWrite(conn, writes.cacheRowDelete({ table: 'users', id }))).toBe(true);
    expect(await reads.sendRead(conn, reads.cacheRowGet({ table: 'users', id }))).toBeNull();
    expect(await writes.sendWrite(conn, writes.cacheRowDelete({ table: 'users', id }))).toBe(false);
  });

  it('MGET answers each key in order, missing ones null; SCAN and HKEYS walk a namespace', async () => {
    const [a, b] = [cacheEntryKey('walk', 'a'), cacheEntryKey('walk', 'b')];
    await conn.command('SET', a, 'A');
    await conn.command('HSET', 'ecc:{walk}:tag:t', 'a', '1');
    expect(await reads.sendRead(conn, reads.cacheFramesGet({ keys: [a, b] }))).toEqual([Buffer.from('A'), null]);
    expect(await reads.sendRead(conn, reads.cacheTagMembers({ namespace: 'walk', tag: 't' }))).toEqual(['a']);
    expect(await reads.sendRead(conn, reads.cacheTagMembers({ namespace: 'walk', tag: 'none' }))).toEqual([]);
    const found: string[] = [];
    for (const master of conn.masters()) {
      let cursor = '0';
      do {
        const step = await reads.sendRead(master, reads.cacheEntryScan({ namespace: 'walk', cursor, count: 100 }));
        found.push(...step.keys);
        cursor = step.cursor;
      } while (cursor !== '0');
    }
    expect(found).toEqual(['a']);
    expect(await writes.sendWrite(conn, writes.cacheCoherencePublish({ table: 'walk', message: 'm' }))).toBe(0);
  });

  it('a buffer read cannot go into a text pipeline', async () => {
    await expect(reads.sendReads(conn, [reads.cacheRowGet({ table: 'users', id })])).rejects.toThrow(InvalidArgumentError);
  });

  it('a buffer read on a master that only answers text is refused', async () => {
    const [master] = conn.masters();
    await expect(reads.sendRead(master as reads.ReadTarget, reads.cacheRowGet({ table: 'users', id }))).rejects.toThrow(InvalidArgumentError);
  });
});
