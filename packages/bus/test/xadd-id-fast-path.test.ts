import { ID_EPOCH_MS, IdMinter, decodeId } from '@echo/protocol/bus';
import { describe, expect, it } from 'vitest';
import { xaddId, xaddIdOf } from '../src/xadd-id.js';

const EPOCH = BigInt(ID_EPOCH_MS);
const LAST_MS = ID_EPOCH_MS + 2 ** 41 - 1;

/** bus.md §3 spelled out on the bigint snowflake, independently of either path under test. */
function reference(id: string): string {
  const s = decodeId(id).snowflake;
  return `${(s >> 22n) + EPOCH}-${s & 0x3fffffn}`;
}

/** A small deterministic generator, so a failure names a reproducible case. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Mints `count` ids on `node` at the times `at` gives, checking both paths on each. */
function check(node: number, count: number, at: (i: number) => number): number {
  let i = 0;
  const minter = new IdMinter({ node, now: () => at(i) });
  for (; i < count; i++) {
    const minted = minter.mintParts('EVT');
    const expected = reference(minted.id);
    expect(xaddIdOf(minted), minted.id).toBe(expected);
    expect(xaddId(minted.id), minted.id).toBe(expected);
  }
  return count;
}

describe('the XADD id read off the minter equals the one decoded from the id (bus.md §3)', () => {
  it('at the edges: the epoch, the last 41-bit millisecond, nodes 0 and 1023, a full sequence carrying', () => {
    let checked = 0;
    for (const node of [0, 1, 512, 1023]) {
      // 4096 mints in one frozen millisecond walk the sequence 0..4095 once.
      checked += check(node, 4096, () => ID_EPOCH_MS);
      checked += check(node, 4096, () => LAST_MS);
      // Past 4096 the sequence carries into the next millisecond.
      checked += check(node, 5000, () => ID_EPOCH_MS + 2 ** 32);
    }
    expect(checked).toBe(4 * (4096 * 2 + 5000));
  });

  it('for 100,000 ids at random times, nodes and clock steps (forward and back)', () => {
    const random = lcg(13);
    let checked = 0;
    for (let run = 0; run < 100; run++) {
      const node = Math.floor(random() * 1024);
      const start = ID_EPOCH_MS + Math.floor(random() * (2 ** 41 - 10_000_000));
      let now = start;
      checked += check(node, 1000, () => {
        const step = random();
        if (step < 0.3) now += Math.floor(random() * 5);
        else if (step < 0.32) now -= Math.floor(random() * 50);
        return now;
      });
    }
    expect(checked).toBe(100_000);
  });

  it('on the real clock', () => {
    const minter = new IdMinter({ node: 7 });
    for (let i = 0; i < 10_000; i++) {
      const minted = minter.mintParts('EVT');
      expect(xaddIdOf(minted)).toBe(reference(minted.id));
    }
  });
});
