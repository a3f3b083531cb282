import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { sendWith, useLiveShapes } from './live-shapes.js';
import { InvalidArgumentError, MalformedReplyError, reads } from './support.js';

describe('keyspace and client read builders (argument shapes, no server)', () => {
  it('build SCAN, PTTL, HLEN and CLIENT LIST', () => {
    expect(reads.scan({ cursor: '0' })).toMatchObject({ command: 'SCAN', args: ['0'] });
    expect(reads.scan({ cursor: '17', match: 'emq:*', count: 1000, type: 'stream' })).toMatchObject({ args: ['17', 'MATCH', 'emq:*', 'COUNT', '1000', 'TYPE', 'stream'] });
    expect(reads.pttl({ key: 'k' })).toMatchObject({ command: 'PTTL', args: ['k'] });
    expect(reads.hlen({ key: 'k' })).toMatchObject({ command: 'HLEN', args: ['k'] });
    expect(reads.clientList()).toMatchObject({ command: 'CLIENT', args: ['LIST'] });
    expect(reads.clientList({ type: 'normal' })).toMatchObject({ command: 'CLIENT', args: ['LIST', 'TYPE', 'normal'] });
  });

  it('refuse bad arguments before anything is sent', () => {
    expect(() => reads.scan({ cursor: 'x' })).toThrow(InvalidArgumentError);
    expect(() => reads.scan({ cursor: '0', count: 0 })).toThrow(InvalidArgumentError);
    expect(() => reads.pttl({ key: '' })).toThrow(InvalidArgumentError);
    expect(() => reads.clientList({ type: 'everyone' as 'normal' })).toThrow(InvalidArgumentError);
  });

  it('parse RESP2 and RESP3 shapes, and refuse malformed replies', () => {
    const scan = reads.scan({ cursor: '0' });
    expect(scan.parse(['12', ['a', Buffer.from('b')]])).toEqual({ cursor: '12', keys: ['a', 'b'] });
    for (const bad of [null, ['12'], [12, []], ['x', []], ['0', 'a']]) expect(() => scan.parse(bad), JSON.stringify(bad)).toThrow(MalformedReplyError);
    const pttl = reads.pttl({ key: 'k' });
    expect([pttl.parse(-2), pttl.parse(-1), pttl.parse(1500)]).toEqual([undefined, null, 1500]);
    for (const bad of ['5', -3, 1.5]) expect(() => pttl.parse(bad)).toThrow(MalformedReplyError);
    expect(reads.hlen({ key: 'k' }).parse(3)).toBe(3);
    expect(() => reads.hlen({ key: 'k' }).parse(null)).toThrow(MalformedReplyError);
    const list = 'id=3 addr=127.0.0.1:1 name=echo-worker-wake db=0 cmd=blpop\nid=4 addr=127.0.0.1:2 name= db=0 cmd=client|list\n';
    expect(reads.parseClientList(list)).toEqual([
      { id: '3', name: 'echo-worker-wake', fields: { id: '3', addr: '127.0.0.1:1', name: 'echo-worker-wake', db: '0', cmd: 'blpop' } },
      { id: '4', name: '', fields: { id: '4', addr: '127.0.0.1:2', name: '', db: '0', cmd: 'client|list' } },
    ]);
    expect(reads.parseClientList(Buffer.from(list))).toHaveLength(2);
    for (const bad of [7, 'addr=x name=y', 'id=3 garbage']) expect(() => reads.parseClientList(bad), JSON.stringify(bad)).toThrow(MalformedReplyError);
  });
});

const live = useLiveShapes();

describe.each(live.shapes)('keyspace reads against a live server over %s', (_shape, make) => {
  it('parse SCAN, PTTL, HLEN and CLIENT LIST', async () => {
    const send = make();
    const sendOne = <T>(r: reads.Read<T>): Promise<T> => sendWith(send, r);
    const prefix = uniqueName('ks');
    await send('SET', `${prefix}:a`, '1', 'PX', '60000');
    await send('HSET', `${prefix}:h`, 'f', 'v', 'g', 'w');
    const found: string[] = [];
    let cursor = '0';
    do {
      const step = await sendOne(reads.scan({ cursor, match: `${prefix}:*`, count: 100 }));
      found.push(...step.keys);
      cursor = step.cursor;
    } while (cursor !== '0');
    expect(found.sort()).toEqual([`${prefix}:a`, `${prefix}:h`]);
    expect(await sendOne(reads.pttl({ key: `${prefix}:a` }))).toBeGreaterThan(0);
    expect(await sendOne(reads.pttl({ key: `${prefix}:h` }))).toBeNull();
    expect(await sendOne(reads.pttl({ key: `${prefix}:none` }))).toBeUndefined();
    expect(await sendOne(reads.hlen({ key: `${prefix}:h` }))).toBe(2);
    await send('CLIENT', 'SETNAME', `${prefix}-me`);
    expect((await sendOne(reads.clientList({ type: 'normal' }))).map((c) => c.name)).toContain(`${prefix}-me`);
  });
});

describe('per-node reads through a master of the Connection', () => {
  it('sends SCAN to each master', async () => {
    const [node] = live.conn().masters();
    expect(node).toBeDefined();
    if (node === undefined) return;
    expect((await reads.sendRead(node, reads.scan({ cursor: '0', count: 10 }))).cursor).toMatch(/^\d+$/);
  });
});
