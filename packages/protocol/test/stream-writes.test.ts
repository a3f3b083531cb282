import { uniqueName } from '@echo/testkit';
import { describe, expect, it } from 'vitest';
import { sendWith, useLiveShapes } from './live-shapes.js';
import { InvalidArgumentError, MalformedReplyError, ServerError, writes } from './support.js';

describe('stream write builders (argument shapes, no server)', () => {
  it('build XADD, XACK, XGROUP CREATE/SETID/DESTROY, XTRIM and PUBLISH', () => {
    expect(writes.xadd({ key: 'k', id: '*', fields: ['f', 'v'] })).toMatchObject({ command: 'XADD', args: ['k', '*', 'f', 'v'] });
    expect(writes.xadd({ key: 'k', id: '5-1', fields: ['f', 'v', 'g', 'w'] })).toMatchObject({ args: ['k', '5-1', 'f', 'v', 'g', 'w'] });
    expect(writes.xack({ key: 'k', group: 'g', ids: ['1-0', '2-0'] })).toMatchObject({ command: 'XACK', args: ['k', 'g', '1-0', '2-0'] });
    expect(writes.xgroupCreate({ key: 'k', group: 'g', id: '$', mkstream: true })).toMatchObject({ command: 'XGROUP', args: ['CREATE', 'k', 'g', '$', 'MKSTREAM'] });
    expect(writes.xgroupCreate({ key: 'k', group: 'g', id: '0' })).toMatchObject({ args: ['CREATE', 'k', 'g', '0'] });
    expect(writes.xgroupSetid({ key: 'k', group: 'g', id: '7-3' })).toMatchObject({ command: 'XGROUP', args: ['SETID', 'k', 'g', '7-3'] });
    expect(writes.xgroupDestroy({ key: 'k', group: 'g' })).toMatchObject({ command: 'XGROUP', args: ['DESTROY', 'k', 'g'] });
    expect(writes.xtrim({ key: 'k', maxlen: 10, approx: true })).toMatchObject({ command: 'XTRIM', args: ['k', 'MAXLEN', '~', '10'] });
    expect(writes.xtrim({ key: 'k', minid: '9-0', approx: false })).toMatchObject({ args: ['k', 'MINID', '=', '9-0'] });
    expect(writes.publish({ channel: 'c', message: 'm' })).toMatchObject({ command: 'PUBLISH', args: ['c', 'm'] });
  });

  it('refuse bad arguments before anything is sent', () => {
    const bad = [
      () => writes.xadd({ key: '', id: '*', fields: ['f', 'v'] }),
      () => writes.xadd({ key: 'k', id: '5', fields: ['f', 'v'] }),
      () => writes.xadd({ key: 'k', id: '*', fields: ['f'] }),
      () => writes.xadd({ key: 'k', id: '*', fields: [] }),
      () => writes.xack({ key: 'k', group: 'g', ids: [] }),
      () => writes.xack({ key: 'k', group: 'g', ids: ['x'] }),
      () => writes.xgroupCreate({ key: 'k', group: '', id: '$' }),
      () => writes.xgroupSetid({ key: 'k', group: 'g', id: 'soon' }),
      () => writes.xtrim({ key: 'k', maxlen: -1, approx: true }),
      () => writes.xtrim({ key: 'k', minid: '9', approx: true }),
      () => writes.publish({ channel: '', message: 'm' }),
    ];
    for (const build of bad) expect(build).toThrow(InvalidArgumentError);
  });

  it('parse replies, and refuse malformed ones with MalformedReplyError', () => {
    expect(writes.xadd({ key: 'k', id: '*', fields: ['f', 'v'] }).parse('5-0')).toBe('5-0');
    expect(writes.xadd({ key: 'k', id: '*', fields: ['f', 'v'] }).parse(Buffer.from('5-0'))).toBe('5-0');
    expect(writes.xack({ key: 'k', group: 'g', ids: ['1-0'] }).parse(1)).toBe(1);
    expect(writes.xgroupDestroy({ key: 'k', group: 'g' }).parse(0)).toBe(false);
    expect(writes.xtrim({ key: 'k', maxlen: 1, approx: false }).parse(3)).toBe(3);
    expect(writes.publish({ channel: 'c', message: 'm' }).parse(0)).toBe(0);
    const malformed: [writes.Write<unknown>, unknown][] = [
      [writes.xadd({ key: 'k', id: '*', fields: ['f', 'v'] }), 5],
      [writes.xadd({ key: 'k', id: '*', fields: ['f', 'v'] }), 'five'],
      [writes.xack({ key: 'k', group: 'g', ids: ['1-0'] }), -1],
      [writes.xgroupCreate({ key: 'k', group: 'g', id: '$' }), 1],
      [writes.xgroupSetid({ key: 'k', group: 'g', id: '$' }), null],
      [writes.xgroupDestroy({ key: 'k', group: 'g' }), 2],
      [writes.xtrim({ key: 'k', maxlen: 1, approx: false }), 'OK'],
      [writes.publish({ channel: 'c', message: 'm' }), [1]],
    ];
    for (const [w, reply] of malformed) expect(() => w.parse(reply), `${w.command} ${JSON.stringify(reply)}`).toThrow(MalformedReplyError);
  });
});

const live = useLiveShapes();

describe.each(live.shapes)('stream writes against a live server over %s', (_shape, make) => {
  it('append, group, ack, reset, trim and destroy, each reply parsed', async () => {
    const send = make();
    const sendWrite = <T>(r: writes.Write<T>): Promise<T> => sendWith(send, r);
    const key = uniqueName('stream');
    await sendWrite(writes.xgroupCreate({ key, group: 'g', id: '0', mkstream: true }));
    const a = await sendWrite(writes.xadd({ key, id: '*', fields: ['f', 'a'] }));
    expect(await sendWrite(writes.xadd({ key, id: '9999999999999-0', fields: ['f', 'b'] }))).toBe('9999999999999-0');
    await send('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', key, '>');
    expect(await sendWrite(writes.xack({ key, group: 'g', ids: [a, '9999999999999-0', '1-1'] }))).toBe(2);
    await sendWrite(writes.xgroupSetid({ key, group: 'g', id: '0' }));
    expect(await sendWrite(writes.xtrim({ key, maxlen: 0, approx: false }))).toBe(2);
    expect(await sendWrite(writes.xgroupDestroy({ key, group: 'g' }))).toBe(true);
    expect(await sendWrite(writes.xgroupDestroy({ key, group: 'g' }))).toBe(false);
    expect(await sendWrite(writes.publish({ channel: uniqueName('channel'), message: 'm' }))).toBe(0);
  });
});

describe('stream writes through the Connection', () => {
  it('sends one write, several, and a batch; a refused member fails alone', async () => {
    const key = uniqueName('stream');
    await writes.sendWrite(live.conn(), writes.xgroupCreate({ key, group: 'g', id: '$', mkstream: true }));
    await expect(writes.sendWrite(live.conn(), writes.xgroupCreate({ key, group: 'g', id: '$' }))).rejects.toThrow(ServerError);
    const [ok, refused] = await writes.sendWrites(live.conn(), [writes.xadd({ key, id: '5-0', fields: ['f', 'v'] }), writes.xadd({ key, id: '4-0', fields: ['f', 'v'] })]);
    expect(ok).toEqual({ ok: true, value: '5-0' });
    expect(refused.ok).toBe(false);
    const batch: writes.WriteBatch<number> = { commands: [['XADD', key, '6-0', 'f', 'v'], ['XADD', key, '7-0', 'f', 'v']], parse: (replies) => replies.filter((r) => r.ok).length };
    expect(await writes.sendWriteBatch(live.conn(), batch)).toBe(2);
  });
});
