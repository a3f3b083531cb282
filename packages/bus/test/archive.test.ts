import { KindError, MalformedIdError, mintId, type Connection } from '@echo/protocol/bus';
import { uniqueName } from '@echo/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '../src/index.js';
import { connect, purge } from './helpers.js';

let conn: Connection;
let queue: string;

beforeAll(async () => {
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
});
afterEach(async () => {
  await purge(conn, queue);
});

describe('conformance 78 stream_archived', () => {
  it('reads empty, puts and overwrites W, clears back to empty', async () => {
    queue = `${uniqueName('bus')}.stream_archived`;
    const stream = (await Bus.open(queue, { connection: conn })).stream('log');
    const key = `emq:{${queue}}:stream:log:archived`;
    expect(await stream.getArchived()).toBeUndefined();

    const w1 = mintId('EVT');
    await stream.putArchived(w1);
    expect(await stream.getArchived()).toBe(w1);
    expect(await conn.command('GET', key)).toBe(w1);

    const w2 = mintId('EVT');
    await stream.putArchived(w2);
    expect(await stream.getArchived()).toBe(w2);

    expect(await stream.clearArchived()).toBe(true);
    expect(await stream.getArchived()).toBeUndefined();
    expect(await conn.command('EXISTS', key)).toBe(0);
    expect(await stream.clearArchived()).toBe(false);
  });

  it('refuses a watermark that is not an EVT id before any I/O', async () => {
    queue = `${uniqueName('bus')}.stream_archived`;
    const stream = (await Bus.open(queue, { connection: conn })).stream('log');
    const before = conn.stats().commands;
    await expect(stream.putArchived('JOB000004Zqs4W')).rejects.toThrow(KindError);
    await expect(stream.putArchived('nope')).rejects.toThrow(MalformedIdError);
    expect(conn.stats().commands).toBe(before);
  });
});

describe('dropping a stream', () => {
  it('deletes the entries, the groups and the watermark in one step, and says whether there was a stream', async () => {
    queue = `${uniqueName('bus')}.stream_drop`;
    const bus = await Bus.open(queue, { connection: conn });
    const stream = bus.stream('audit');
    await stream.append({ a: '1' });
    await stream.openGroup('readers', 'head');
    await stream.putArchived(mintId('EVT'));
    const keys = [`emq:{${queue}}:stream:audit`, `emq:{${queue}}:stream:audit:archived`];
    expect(await conn.command('EXISTS', ...keys)).toBe(2);

    expect(await stream.drop()).toBe(true);
    expect(await conn.command('EXISTS', ...keys)).toBe(0);
    expect(await stream.read()).toEqual([]);
    expect(await stream.drop()).toBe(false);
  });
});
