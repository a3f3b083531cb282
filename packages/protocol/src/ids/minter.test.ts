import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/validation.js';
import { decodeId, encodeId } from './codec.js';
import { IdMinter } from './minter.js';
import { ID_EPOCH_MS, snowflakeParts } from './snowflake.js';

const T = Date.UTC(2026, 0, 1);

function partsOf(id: string): ReturnType<typeof snowflakeParts> {
  return snowflakeParts(decodeId(id).snowflake);
}

function expectStrictlyIncreasing(ids: readonly string[]): void {
  for (let i = 1; i < ids.length; i++) {
    const a = ids[i - 1]!;
    const b = ids[i]!;
    expect(a < b, `${a} < ${b} at ${i}`).toBe(true);
    expect(decodeId(a).snowflake < decodeId(b).snowflake).toBe(true);
  }
}

describe('IdMinter (protocol.md §4.3)', () => {
  it('is strictly increasing over 10,000 mints on the real clock', () => {
    const minter = new IdMinter({ node: 17 });
    const ids = Array.from({ length: 10_000 }, () => minter.mint('JOB'));
    expectStrictlyIncreasing(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries the sequence into the timestamp within one frozen millisecond', () => {
    const minter = new IdMinter({ node: 3, now: () => T });
    const ids = Array.from({ length: 5000 }, () => minter.mint('JOB'));
    expectStrictlyIncreasing(ids);
    const ts = BigInt(T - ID_EPOCH_MS);
    expect(partsOf(ids[0]!)).toMatchObject({ ts, seq: 0, node: 3 });
    expect(partsOf(ids[4095]!)).toMatchObject({ ts, seq: 4095 });
    expect(partsOf(ids[4096]!)).toMatchObject({ ts: ts + 1n, seq: 0 });
    expect(partsOf(ids[4999]!)).toMatchObject({ ts: ts + 1n, seq: 903 });
  });

  it('keeps increasing when the clock goes backwards, then follows it once it passes', () => {
    const times = [T, T, T - 60_000, T - 60_000, T - 1, T + 5, T + 5];
    let i = 0;
    const minter = new IdMinter({ node: 9, now: () => times[Math.min(i++, times.length - 1)]! });
    const ids = times.map(() => minter.mint('EVT'));
    expectStrictlyIncreasing(ids);
    const ts = BigInt(T - ID_EPOCH_MS);
    expect(ids.slice(0, 5).map((id) => partsOf(id).ts)).toEqual([ts, ts, ts, ts, ts]);
    expect(ids.slice(0, 5).map((id) => partsOf(id).seq)).toEqual([0, 1, 2, 3, 4]);
    expect(partsOf(ids[5]!)).toMatchObject({ ts: ts + 5n, seq: 0 });
    expect(partsOf(ids[6]!)).toMatchObject({ ts: ts + 5n, seq: 1 });
  });

  it('embeds the node and the clock time', () => {
    for (const node of [0, 1, 395, 1023]) {
      const id = new IdMinter({ node, now: () => T }).mint('JOB');
      expect(id.startsWith('JOB')).toBe(true);
      expect(partsOf(id)).toEqual({ ts: BigInt(T - ID_EPOCH_MS), unixMs: T, node, seq: 0 });
    }
  });

  it('starts a replacement minter after its predecessor, whatever the nodes', () => {
    const first = new IdMinter({ node: 1000, now: () => T });
    const before = [first.mint('JOB'), first.mint('JOB')];
    const second = new IdMinter({ node: 1, now: () => T, continueFrom: first });
    const after = second.mint('JOB');
    expectStrictlyIncreasing([...before, after]);
    expect(partsOf(after)).toMatchObject({ ts: BigInt(T - ID_EPOCH_MS) + 1n, node: 1, seq: 0 });
  });

  it.each([-1, 1024, 1.5, Number.NaN, '3'])('refuses node %j', (node) => {
    expect(() => new IdMinter({ node: node as number })).toThrow(InvalidArgumentError);
  });

  it('refuses a bad namespace without spending a sequence number', () => {
    const minter = new IdMinter({ node: 0, now: () => T });
    expect(() => minter.mint('job')).toThrow(InvalidArgumentError);
    expect(partsOf(minter.mint('JOB')).seq).toBe(0);
  });

  it('refuses a clock that is not finite', () => {
    expect(() => new IdMinter({ node: 0, now: () => Number.NaN }).mint('JOB')).toThrow(InvalidArgumentError);
  });

  it('mints the bytes of encodeId(nextSnowflake()), and mintParts answers the fields the id decodes to', () => {
    // Twin minters on one clock: one through the bigint path, one through each fast path.
    let now = T;
    const clock = (): number => now;
    const reference = new IdMinter({ node: 777, now: clock });
    const fast = new IdMinter({ node: 777, now: clock });
    const parts = new IdMinter({ node: 777, now: clock });
    for (let i = 0; i < 20_000; i++) {
      // Mostly the same millisecond (the sequence carries), sometimes a jump forward or back.
      if (i % 997 === 0) now += 1 + (i % 5000);
      if (i % 1999 === 0) now -= 3;
      const expected = encodeId('EVT', reference.nextSnowflake());
      expect(fast.mint('EVT')).toBe(expected);
      const minted = parts.mintParts('EVT');
      expect(minted.id).toBe(expected);
      const decoded = partsOf(expected);
      expect({ unixMs: minted.unixMs, node: minted.node, seq: minted.seq }).toEqual({ unixMs: decoded.unixMs, node: decoded.node, seq: decoded.seq });
    }
  });

  it('mintParts refuses a bad namespace without spending a sequence number', () => {
    const minter = new IdMinter({ node: 3, now: () => T });
    expect(() => minter.mintParts('evt')).toThrow(InvalidArgumentError);
    expect(minter.mintParts('EVT').seq).toBe(0);
  });

  it('mints up to the last 41-bit millisecond and refuses past it', () => {
    const last = ID_EPOCH_MS + 2 ** 41 - 1;
    const minter = new IdMinter({ node: 1023, now: () => last });
    for (let i = 0; i < 4095; i++) minter.mint('USR');
    expect(minter.mint('USR')).toBe('USRAzL8n0Y58m7');
    expect(() => minter.mint('USR')).toThrow(InvalidArgumentError);
  });
});
