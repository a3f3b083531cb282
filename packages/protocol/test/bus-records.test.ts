import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { sendWith, useLiveShapes } from './live-shapes.js';
import { aclName } from './acl-names.js';
import { busAclRules, InvalidArgumentError, KindError, MalformedIdError, MalformedReplyError, mintId, queueKeys, reads, writes, type EvtId } from './support.js';

const evt = mintId('EVT');
const other = mintId('EVT');
const records = { key: 'k', ids: [{ id: evt, xid: '5-0' }, { id: other, xid: '5-1' }], fields: [['f', 'a'], ['f', 'b']] };

describe('bus record builders (argument shapes, no server)', () => {
  it('build the record appends: the explicit XADD id, `id` first, trace fields last', () => {
    expect(writes.bus.appendRecord({ key: 'k', id: evt, xid: '5-0', fields: ['f', 'v'] })).toMatchObject({ command: 'XADD', args: ['k', '5-0', 'id', evt, 'f', 'v'] });
    expect(writes.bus.appendRecord({ key: 'k', id: evt, xid: '5-0', fields: [], extra: ['_tp', 't'] })).toMatchObject({ args: ['k', '5-0', 'id', evt, '_tp', 't'] });
    expect(writes.bus.appendRecords(records).commands).toEqual([
      ['XADD', 'k', '5-0', 'id', evt, 'f', 'a'],
      ['XADD', 'k', '5-1', 'id', other, 'f', 'b'],
    ]);
    expect(writes.bus.appendRecords({ ...records, extra: ['_tp', 't'] }).commands[1]).toEqual(['XADD', 'k', '5-1', 'id', other, 'f', 'b', '_tp', 't']);
  });

  it('build the watermark and paused-group reads and writes on the stream\'s keys', () => {
    const keys = queueKeys('q');
    expect(reads.bus.watermark({ queue: 'q', stream: 's' })).toMatchObject({ command: 'GET', args: [keys.archived('s')] });
    expect(writes.bus.putWatermark({ queue: 'q', stream: 's', watermark: evt })).toMatchObject({ command: 'SET', args: [keys.archived('s'), evt] });
    expect(writes.bus.clearWatermark({ queue: 'q', stream: 's' })).toMatchObject({ command: 'DEL', args: [keys.archived('s')] });
    const paused = keys.streamPart('s', 'paused');
    expect(writes.bus.pauseGroup({ queue: 'q', stream: 's', group: 'g', atMs: 42 })).toMatchObject({ command: 'HSET', args: [paused, 'g', '42'] });
    expect(writes.bus.resumeGroup({ queue: 'q', stream: 's', group: 'g' })).toMatchObject({ command: 'HDEL', args: [paused, 'g'] });
    expect(reads.bus.groupPaused({ queue: 'q', stream: 's', group: 'g' })).toMatchObject({ command: 'HEXISTS', args: [paused, 'g'] });
  });

  it('refuse bad arguments before anything is sent', () => {
    expect(() => writes.bus.appendRecords({ ...records, fields: [['f', 'a']] })).toThrow(InvalidArgumentError);
    expect(() => writes.bus.appendRecord({ key: '', id: evt, xid: '5-0', fields: [] })).toThrow(InvalidArgumentError);
    expect(() => writes.bus.putWatermark({ queue: 'q', stream: 's', watermark: 'nope' as EvtId })).toThrow(MalformedIdError);
    expect(() => writes.bus.putWatermark({ queue: 'q', stream: 's', watermark: mintId('JOB') as unknown as EvtId })).toThrow(KindError);
    expect(() => writes.bus.pauseGroup({ queue: 'q', stream: 's', group: '', atMs: 1 })).toThrow(InvalidArgumentError);
    expect(() => writes.bus.pauseGroup({ queue: 'q', stream: 's', group: 'g', atMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => reads.bus.watermark({ queue: 'bad name', stream: 's' })).toThrow();
  });

  it('parse replies, and refuse malformed ones', () => {
    expect(writes.bus.appendRecord({ key: 'k', id: evt, xid: '5-0', fields: [] }).parse('5-0')).toBe(evt);
    expect(() => writes.bus.appendRecord({ key: 'k', id: evt, xid: '5-0', fields: [] }).parse('5-1')).toThrow(MalformedReplyError);
    const batch = writes.bus.appendRecords(records);
    expect(batch.parse([{ ok: true, value: '5-0' }, { ok: true, value: '5-1' }])).toBeUndefined();
    const refused = new Error('ERR The ID specified in XADD is equal or smaller');
    const mixed = batch.parse([{ ok: true, value: '5-0' }, { ok: false, error: refused }]);
    expect(mixed).toEqual([undefined, refused]);
    expect(batch.parse([{ ok: true, value: 7 }, { ok: true, value: '5-1' }])?.[0]).toBeInstanceOf(MalformedReplyError);
    expect(() => batch.parse([{ ok: true, value: '5-0' }])).toThrow(MalformedReplyError);

    const w = reads.bus.watermark({ queue: 'q', stream: 's' });
    expect(w.parse(null)).toBeUndefined();
    expect(w.parse(evt)).toBe(evt);
    expect(w.parse(Buffer.from(evt))).toBe(evt);
    expect(() => w.parse(7)).toThrow(MalformedReplyError);
    expect(() => w.parse('garbage')).toThrow(MalformedIdError);
    expect(writes.bus.putWatermark({ queue: 'q', stream: 's', watermark: evt }).parse('OK')).toBeUndefined();
    expect(() => writes.bus.putWatermark({ queue: 'q', stream: 's', watermark: evt }).parse(null)).toThrow(MalformedReplyError);
    expect(writes.bus.clearWatermark({ queue: 'q', stream: 's' }).parse(1)).toBe(true);
    expect(() => writes.bus.clearWatermark({ queue: 'q', stream: 's' }).parse('1')).toThrow(MalformedReplyError);
    expect(reads.bus.groupPaused({ queue: 'q', stream: 's', group: 'g' }).parse(0)).toBe(false);
    expect(() => reads.bus.groupPaused({ queue: 'q', stream: 's', group: 'g' }).parse(true)).toThrow(MalformedReplyError);
    expect(() => writes.bus.pauseGroup({ queue: 'q', stream: 's', group: 'g', atMs: 1 }).parse('OK')).toThrow(MalformedReplyError);
    expect(writes.bus.resumeGroup({ queue: 'q', stream: 's', group: 'g' }).parse(1)).toBe(true);
  });
});

describe('the bus reads and writes and the ACL rules generated from them', () => {
  // Every typed read and write the bus host sends, built with sample input: the generator reads the
  // builders' literals, and this checks what each really sends is granted.
  const built: reads.Read<unknown>[] = [
    writes.bus.appendRecord({ key: 'k', id: evt, xid: '5-0', fields: [] }),
    reads.xrange({ key: 'k' }),
    reads.xrevrange({ key: 'k' }),
    reads.xtop({ key: 'k' }),
    reads.xread({ key: 'k', after: '0-0' }),
    reads.xinfoStream({ key: 'k' }),
    reads.xreadgroup({ key: 'k', group: 'g', consumer: 'c' }),
    writes.xack({ key: 'k', group: 'g', ids: ['1-0'] }),
    writes.xgroupCreate({ key: 'k', group: 'g', id: '$' }),
    writes.xgroupSetid({ key: 'k', group: 'g', id: '0' }),
    writes.xgroupDestroy({ key: 'k', group: 'g' }),
    reads.xinfoGroups({ key: 'k' }),
    reads.xinfoConsumers({ key: 'k', group: 'g' }),
    reads.xpendingSummary({ key: 'k', group: 'g' }),
    writes.xtrim({ key: 'k', maxlen: 1, approx: true }),
    reads.bus.watermark({ queue: 'q', stream: 's' }),
    writes.bus.putWatermark({ queue: 'q', stream: 's', watermark: evt }),
    writes.bus.clearWatermark({ queue: 'q', stream: 's' }),
    writes.bus.pauseGroup({ queue: 'q', stream: 's', group: 'g', atMs: 1 }),
    writes.bus.resumeGroup({ queue: 'q', stream: 's', group: 'g' }),
    reads.bus.groupPaused({ queue: 'q', stream: 's', group: 'g' }),
    writes.publish({ channel: 'c', message: 'm' }),
  ];
  const batchCommands = writes.bus.appendRecords(records).commands.map((c) => c[0].toLowerCase());

  it('grants the command of every bus read and write', () => {
    const rules = busAclRules(['q']);
    for (const r of built) expect(rules, `${r.command} ${String(r.args[0])}`).toContain(`+${aclName(r)}`);
    for (const c of batchCommands) expect(rules).toContain(`+${c}`);
  });
});

const live = useLiveShapes();

describe.each(live.shapes)('bus records against a live server over %s', (_shape, make) => {
  it('append a record, keep a watermark, pause and resume a group', async () => {
    const send = make();
    const sendOne = <T>(r: reads.Read<T>): Promise<T> => sendWith(send, r);
    const queue = uniqueName('q');
    const key = queueKeys(queue).stream('s');
    const id = mintId('EVT');
    expect(await sendOne(writes.bus.appendRecord({ key, id, xid: '7-0', fields: ['f', 'v'] }))).toBe(id);
    expect(await sendOne(reads.xrange({ key }))).toEqual([{ id: '7-0', fields: ['id', id, 'f', 'v'] }]);
    expect(await sendOne(reads.bus.watermark({ queue, stream: 's' }))).toBeUndefined();
    await sendOne(writes.bus.putWatermark({ queue, stream: 's', watermark: id }));
    expect(await sendOne(reads.bus.watermark({ queue, stream: 's' }))).toBe(id);
    expect(await sendOne(writes.bus.clearWatermark({ queue, stream: 's' }))).toBe(true);
    expect(await sendOne(writes.bus.clearWatermark({ queue, stream: 's' }))).toBe(false);
    await sendOne(writes.bus.pauseGroup({ queue, stream: 's', group: 'g', atMs: Date.now() }));
    expect(await sendOne(reads.bus.groupPaused({ queue, stream: 's', group: 'g' }))).toBe(true);
    expect(await sendOne(writes.bus.resumeGroup({ queue, stream: 's', group: 'g' }))).toBe(true);
    expect(await sendOne(reads.bus.groupPaused({ queue, stream: 's', group: 'g' }))).toBe(false);
  });
});

describe('a record batch through the Connection', () => {
  it('answers no refusals when all land, and names the refused member otherwise', async () => {
    const key = queueKeys(uniqueName('q')).stream('s');
    const first = [{ id: mintId('EVT'), xid: '10-0' }, { id: mintId('EVT'), xid: '10-1' }];
    expect(await writes.sendWriteBatch(live.conn(), writes.bus.appendRecords({ key, ids: first, fields: [['f', 'a'], ['f', 'b']] }))).toBeUndefined();
    const again = [{ id: mintId('EVT'), xid: '11-0' }, { id: mintId('EVT'), xid: '9-0' }];
    const refusals = await writes.sendWriteBatch(live.conn(), writes.bus.appendRecords({ key, ids: again, fields: [['f', 'c'], ['f', 'd']] }));
    expect(refusals?.[0]).toBeUndefined();
    expect(refusals?.[1]?.message).toMatch(/equal or smaller/);
  });
});
