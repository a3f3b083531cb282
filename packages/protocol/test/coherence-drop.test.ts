import { uniqueName, useRedis } from '@echo/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../src/connector/connection.js';
import { encodeId, mintId, type BrandedId } from '../src/ids/index.js';
import { cacheKey } from '../src/keys/index.js';
import { scripts } from '../src/scripts/catalog.js';

let conn: Connection;

beforeAll(async () => {
  const server = await useRedis();
  conn = await Connection.connect({ url: server.url, strictKeys: true });
  expect(conn.strictKeys).toBe(true);
});

afterAll(async () => {
  await conn.close();
});

/** A fresh L2 key of a fresh table, holding `frame` when one is given (cache.md §2: version ++ value). */
async function entry(frame?: string | Buffer): Promise<string> {
  const key = cacheKey(uniqueName('coh'), mintId('USR'));
  if (frame !== undefined) await conn.command('SET', key, frame);
  return key;
}

function drop(key: string, version: string): Promise<unknown> {
  return conn.run(scripts().coherence_drop, [key], [version]);
}

async function exists(key: string): Promise<boolean> {
  return (await conn.command('EXISTS', key)) === 1;
}

describe('coherence_drop', () => {
  it('returns 0 for a missing entry and creates nothing', async () => {
    const key = await entry();
    expect(await drop(key, mintId('VER'))).toBe(0);
    expect(await exists(key)).toBe(false);
  });

  it('drops a strictly older frame and keeps the value bytes out of the comparison', async () => {
    const older = mintId('VER');
    const newer = mintId('VER');
    const key = await entry(Buffer.concat([Buffer.from(older), Buffer.from([0xff, 0x00, 0x7a])]));
    expect(await drop(key, newer)).toBe(1);
    expect(await exists(key)).toBe(false);
  });

  it('keeps a frame that is newer than, or the same version as, the message: a late message never removes a newer row', async () => {
    const older = mintId('VER');
    const newer = mintId('VER');
    const key = await entry(`${newer}value`);
    expect(await drop(key, older)).toBe(0);
    expect(await drop(key, newer)).toBe(0);
    expect(await conn.command('GET', key)).toBe(`${newer}value`);
  });

  it('drops a frame shorter than 14 bytes, whatever the version', async () => {
    const key = await entry('short');
    expect(await drop(key, encodeId('VER', 0n))).toBe(1);
    expect(await exists(key)).toBe(false);
  });

  it('compares only the 11 payload bytes, so namespaces do not matter', async () => {
    const stored = encodeId('ZZZ', 1000n);
    const key = await entry(`${stored}v`);
    expect(await drop(key, encodeId('AAA', 1000n))).toBe(0);
    expect(await drop(key, encodeId('AAA', 999n))).toBe(0);
    expect(await exists(key)).toBe(true);
    expect(await drop(key, encodeId('AAA', 1001n))).toBe(1);
    expect(await exists(key)).toBe(false);
  });

  it('orders by bytes, not by a locale: a lowercase digit beats an uppercase one', async () => {
    // Base62 puts 'a' (0x61) after 'B' (0x42); a case-folding collation would not.
    const stored = 'VER0000000000B' as BrandedId;
    const version = 'VER0000000000a' as BrandedId;
    const key = await entry(`${stored}v`);
    expect(await drop(key, stored)).toBe(0);
    expect(await drop(key, version)).toBe(1);
    const back = await entry(`${version}v`);
    expect(await drop(back, stored)).toBe(0);
    expect(await exists(back)).toBe(true);
  });
});
