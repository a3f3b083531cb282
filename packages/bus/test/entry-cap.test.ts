/**
 * A stream entry has a byte cap (field names and values, UTF-8): 1 MiB by default, set on the bus
 * or per stream. An append over it throws ValueTooLargeError and writes nothing; a batch with one
 * record over it writes none of them.
 */
import { Connection, DEFAULT_MAX_VALUE_BYTES, InvalidArgumentError, ValueTooLargeError, mintId } from '@echo/protocol/bus';
import { startRedis, type RedisServer } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { append, Bus } from '../src/index.js';

let server: RedisServer;
let conn: Connection;

beforeAll(async () => {
  server = await startRedis();
  conn = await Connection.connect({ url: server.url });
});
afterAll(async () => {
  await conn.close();
  await server.stop();
});

async function keys(): Promise<string[]> {
  return ((await conn.command('KEYS', '*')) as string[]).sort();
}

async function refusal(call: Promise<unknown>): Promise<ValueTooLargeError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValueTooLargeError);
  return error as ValueTooLargeError;
}

describe('the byte cap on a stream entry', () => {
  it('refuses a 10 MiB field by default and writes nothing', async () => {
    const stream = (await Bus.open({ connection: conn })).stream('blobs');
    expect(stream.maxEntryBytes).toBe(DEFAULT_MAX_VALUE_BYTES);
    const before = await keys();
    const error = await refusal(stream.append({ blob: 'x'.repeat(10 * 1024 * 1024) }));
    expect(error.limit).toBe(DEFAULT_MAX_VALUE_BYTES);
    expect(error.bytes).toBe(10 * 1024 * 1024 + 'blob'.length);
    await refusal(stream.appendId(mintId('EVT'), { blob: 'x'.repeat(2 * 1024 * 1024) }));
    expect(await keys()).toEqual(before);
  });

  it('counts names and values in UTF-8 bytes, up to the cap exactly', async () => {
    const stream = (await Bus.open({ connection: conn, maxEntryBytes: 12 })).stream('utf8');
    expect(stream.maxEntryBytes).toBe(12);
    await stream.append({ ab: 'é'.repeat(5) }); // 2 + 10 bytes: at the cap
    const error = await refusal(stream.append({ abc: 'é'.repeat(5) })); // 3 + 10
    expect(error.bytes).toBe(13);
    expect(await stream.read()).toHaveLength(1);
  });

  it('refuses a whole batch when one record is over, before sending any', async () => {
    const stream = (await Bus.open({ connection: conn, maxEntryBytes: 64 })).stream('batch');
    const before = await keys();
    const error = await refusal(stream.appendBatch([{ a: 'small' }, { a: 'y'.repeat(100) }, { a: 'small' }]));
    expect(error.what).toContain('records[1]');
    expect(await keys()).toEqual(before);
  });

  it('takes a per-stream cap over the bus one, and Infinity for none', async () => {
    const bus = await Bus.open({ connection: conn, maxEntryBytes: 16 });
    expect(bus.stream('tight').maxEntryBytes).toBe(16);
    const loose = bus.stream('loose', { maxEntryBytes: Number.POSITIVE_INFINITY });
    await loose.append({ blob: 'z'.repeat(2 * 1024 * 1024) });
    expect(await loose.read()).toHaveLength(1);
    await refusal(append(conn, 'fn', 'capped', { a: 'x'.repeat(20) }, { maxEntryBytes: 8 }));
  });

  it('refuses a cap that is not a whole number of bytes', async () => {
    await expect(Bus.open({ connection: conn, maxEntryBytes: 0 })).rejects.toThrow(InvalidArgumentError);
    const bus = await Bus.open({ connection: conn });
    expect(() => bus.stream('s', { maxEntryBytes: 1.5 })).toThrow(InvalidArgumentError);
  });
});
