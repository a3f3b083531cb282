import { CodecError, KindError, mintId } from '@echo/protocol/cache';
import { describe, expect, it } from 'vitest';
import { jsonCodec } from '../src/base/codec.js';
import { expiresAt } from '../src/tables/expiry.js';
import { decodeFrame, encodeFrame } from '../src/tables/frame.js';
import { CorruptL2FrameError, FlightCrashedError, bufferCodec, stringCodec } from '../src/index.js';
import { Ring } from '../src/coherence/ring.js';
import { checkKind } from '../src/tables/kind-law.js';
import { Flights } from '../src/core/single-flight.js';
import { L1 } from '../src/core/l1.js';
import { collectGarbage } from './helpers.js';

/** A fixed sequence of whole numbers below `n` (mulberry32 from `seed`), so a failing churn replays. */
function sequence(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

describe('L2 frame', () => {
  it('is the 14-byte version followed by the value bytes', () => {
    const version = mintId('USR');
    const frame = encodeFrame(version, '{"a":1}');
    expect(frame.toString('latin1')).toBe(`${version}{"a":1}`);
    expect(decodeFrame('k', frame)).toEqual({ version, bytes: Buffer.from('{"a":1}') });
  });

  it('takes an empty value and refuses a frame shorter than 14 bytes', () => {
    const version = mintId('USR');
    expect(decodeFrame('k', encodeFrame(version, Buffer.alloc(0))).bytes.length).toBe(0);
    const short = () => decodeFrame('ecc:{t}:x', Buffer.from('USR0000000000'));
    expect(short).toThrow(CorruptL2FrameError);
    expect(short).toThrow(/13 bytes/);
  });
});

describe('kind law', () => {
  const id = mintId('USR');
  it('passes a valid id of the kind', () => {
    expect(checkKind('t', 'USR', id)).toBe(id);
  });

  it.each([
    ['another kind', mintId('ORD')],
    ['13 bytes', 'USR0000000000'],
    ['15 bytes', 'USR000000000000'],
    ['a bad charset', 'USR0000000000*'],
    ['an out-of-range payload', 'USRzzzzzzzzzzz'],
    ['lower-case namespace', 'usr00000000000'],
    ['a number', 42],
    ['null', null],
  ])('refuses %s with KindError', (_label, value) => {
    expect(() => checkKind('t', 'USR', value)).toThrow(KindError);
  });
});

describe('expiry', () => {
  it('is exact with no spread', () => {
    expect(expiresAt(100, 5000, 0, () => 0.99)).toBe(5100);
    // trunc(9 × 0.1) = 0: a spread that rounds to nothing is no jitter.
    expect(expiresAt(100, 9, 0.1, () => 0.99)).toBe(109);
  });

  it('spans exactly [-spread, +spread] with an injected random', () => {
    // spread = trunc(1000 × 0.25) = 250
    expect(expiresAt(0, 1000, 0.25, () => 0)).toBe(750);
    expect(expiresAt(0, 1000, 0.25, () => 0.9999999)).toBe(1250);
    expect(expiresAt(0, 1000, 0.25, () => 1)).toBe(1250);
    expect(expiresAt(0, 1000, 0.25, () => 0.5)).toBe(1000);
  });

  it('is a uniform integer over the whole range', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const at = expiresAt(0, 100, 0.05, Math.random);
      expect(Number.isInteger(at)).toBe(true);
      expect(at).toBeGreaterThanOrEqual(95);
      expect(at).toBeLessThanOrEqual(105);
      seen.add(at);
    }
    expect(seen.size).toBe(11);
  });
});

describe('ring', () => {
  it('is FIFO, refuses when full and overwrites nothing', () => {
    const ring = new Ring<number>(3);
    expect([ring.push(1), ring.push(2), ring.push(3), ring.push(4)]).toEqual([true, true, true, false]);
    expect(ring.shift()).toBe(1);
    expect(ring.push(5)).toBe(true);
    expect([ring.shift(), ring.shift(), ring.shift(), ring.shift()]).toEqual([2, 3, 5, undefined]);
    expect(ring.length).toBe(0);
  });
});

describe('codecs', () => {
  it('round-trips JSON and refuses what JSON cannot carry', () => {
    const codec = jsonCodec<{ a: number[] }>();
    expect(codec.decode(Buffer.from(codec.encode({ a: [1, 2] })))).toEqual({ a: [1, 2] });
    expect(() => codec.encode(undefined as never)).toThrow(CodecError);
    expect(() => jsonCodec<bigint>().encode(1n)).toThrow(CodecError);
    expect(() => codec.decode(Buffer.from('{'))).toThrow(CodecError);
  });

  it('carries strings and buffers as they are', () => {
    expect(stringCodec.decode(Buffer.from(stringCodec.encode('héllo')))).toBe('héllo');
    expect(() => stringCodec.encode(1 as never)).toThrow(CodecError);
    const bytes = Buffer.from([0, 255, 1]);
    expect(bufferCodec.decode(bufferCodec.encode(bytes) as Buffer)).toEqual(bytes);
  });
});

describe('single flight (unit)', () => {
  it('gives every waiter the same promise and forgets the flight when it settles', async () => {
    const flights = new Flights<number>();
    let release!: (n: number) => void;
    const first = flights.start('a', () => new Promise<number>((r) => (release = r)));
    expect(flights.join('a')).toBe(first);
    expect(flights.size).toBe(1);
    release(7);
    await expect(first).resolves.toBe(7);
    expect(flights.join('a')).toBeUndefined();
  });

  it('turns a non-Error throw into FlightCrashedError carrying the reason', async () => {
    const flights = new Flights<number>();
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the crash under test
    const crashed = flights.start('a', () => Promise.reject('boom'));
    await expect(crashed).rejects.toBeInstanceOf(FlightCrashedError);
    await expect(crashed).rejects.toMatchObject({ reason: 'boom' });
  });
});

describe('L1 clock eviction (unit)', () => {
  interface Row {
    used: boolean;
    deadAt: number;
  }

  /** The clock as specified, on an array: walk from the oldest row, reclaim a dead one, give a used one a second chance at the back, evict the first unused one. */
  function reference(max: number): { set(key: string, row: Row, now: number): void; delete(key: string): void; keys(): string[]; evictions: number; expired: number } {
    let rows: [string, Row][] = [];
    const model = {
      evictions: 0,
      expired: 0,
      set(key: string, row: Row, now: number): void {
        const at = rows.findIndex(([k]) => k === key);
        if (at >= 0) rows.splice(at, 1);
        else if (rows.length >= max) makeRoom(now);
        rows.push([key, row]);
      },
      delete(key: string): void {
        rows = rows.filter(([k]) => k !== key);
      },
      keys: (): string[] => rows.map(([k]) => k),
    };
    function makeRoom(now: number): void {
      for (let budget = rows.length * 2; budget > 0; budget--) {
        const [key, row] = rows[0] as [string, Row];
        rows.shift();
        if (row.deadAt <= now) {
          model.expired++;
          return;
        }
        if (row.used) {
          row.used = false;
          rows.push([key, row]);
          continue;
        }
        model.evictions++;
        return;
      }
      rows.shift();
      model.evictions++;
    }
    return model;
  }

  it('evicts what the clock as specified evicts, through a long churn of inserts, hits, replacements, deletes and dead rows', () => {
    const max = 40;
    const l1 = new L1<Row>({ maxSize: max, eviction: 'clock', dead: (row, now) => row.deadAt <= now, deadFrom: (row) => row.deadAt, name: 'unit' });
    const model = reference(max);
    const next = sequence(7);
    const shared = new Map<string, { l1: Row; model: Row }>();
    for (let now = 0; now < 20_000; now++) {
      const key = `k${String(next(120))}`;
      const op = next(10);
      if (op < 5) {
        const deadAt = next(20) === 0 ? now + next(50) : Infinity;
        const pair = { l1: { used: false, deadAt }, model: { used: false, deadAt } };
        shared.set(key, pair);
        l1.set(key, pair.l1, now);
        model.set(key, pair.model, now);
      } else if (op < 9) {
        // A hit sets the flag on both.
        const pair = shared.get(key);
        if (pair !== undefined && l1.get(key) === pair.l1) {
          pair.l1.used = true;
          pair.model.used = true;
        }
      } else {
        l1.delete(key);
        model.delete(key);
      }
      expect([...l1.entries()].map(([k]) => k), `step ${String(now)}`).toEqual(model.keys());
    }
    expect(l1.evictions).toBe(model.evictions);
    expect(l1.expired).toBe(model.expired);
    expect(l1.evictions).toBeGreaterThan(1_000);
    expect(l1.expired).toBeGreaterThan(10);
  });
});

describe('L1 skip eviction (unit)', () => {
  interface Row {
    deadAt: number;
  }
  /** Counts the rows `dead` is asked about: a walk of L1 asks about each row it passes. */
  function counted(max: number): { l1: L1<Row>; asked: () => number } {
    let asked = 0;
    const l1 = new L1<Row>({
      maxSize: max,
      eviction: 'skip',
      dead: (row, now) => {
        asked++;
        return row.deadAt <= now;
      },
      deadFrom: (row) => row.deadAt,
      name: 'unit',
    });
    return { l1, asked: () => asked };
  }

  it('skips newcomers to a full L1 of live rows without walking it for each', () => {
    const { l1, asked } = counted(1_000);
    for (let i = 0; i < 1_000; i++) l1.set(`live${String(i)}`, { deadAt: 10_000 + i }, 0);
    for (let i = 0; i < 1_000; i++) expect(l1.set(`new${String(i)}`, { deadAt: 50_000 }, 1 + i)).toBe(false);
    expect(l1.fullSkips).toBe(1_000);
    // No row is asked about before the first can have died; a walk per newcomer asked about 1,000,000.
    expect(asked()).toBeLessThanOrEqual(1_000);
    // Once the first row has died, the next newcomer reclaims it from the front of the death order and goes in.
    expect(l1.set('late', { deadAt: 50_000 }, 10_000)).toBe(true);
    expect(l1.get('live0')).toBeUndefined();
    expect(l1.expired).toBe(1);
  });

  it('lets go of a replaced or deleted row at once: its stale entry in the death order holds the key, not the row', async () => {
    const { l1 } = counted(100);
    // Made in a function of their own, so nothing here holds the rows but L1 (and its death order).
    const dropped = ((): WeakRef<Row>[] => {
      const replaced = { deadAt: 10_000 };
      const deleted = { deadAt: 10_000 };
      l1.set('a', replaced, 0);
      l1.set('b', deleted, 0);
      l1.set('a', { deadAt: 20_000 }, 0);
      l1.delete('b');
      return [new WeakRef(replaced), new WeakRef(deleted)];
    })();
    await collectGarbage();
    expect(dropped.map((ref) => ref.deref())).toStrictEqual([undefined, undefined]);
    // The stale entries come first and are dropped; the replacement dies at its own instant.
    expect(l1.sweep(15_000)).toBe(0);
    expect(l1.get('a')?.deadAt).toBe(20_000);
    expect(l1.sweep(20_000)).toBe(1);
    expect(l1.size).toBe(0);
  });

  it('keeps reclaiming past a row whose death instant is NaN (an injected clock): that row never dies', () => {
    const { l1 } = counted(2);
    // In this order the NaN rose to the front of the death order, and every reclaim stopped there.
    l1.set('dies', { deadAt: 5 }, 0);
    l1.set('nan', { deadAt: Number.NaN }, 0);
    expect(l1.set('new', { deadAt: 50 }, 10)).toBe(true);
    expect(l1.get('dies')).toBeUndefined();
    expect(l1.get('nan')).toBeDefined();
  });

  it('reclaims the rows that died from the front of the death order, not by walking L1 for each newcomer', () => {
    const { l1, asked } = counted(1_000);
    // Rows that die one per instant, as jittered expiries make them: each newcomer finds one dead row.
    for (let i = 0; i < 1_000; i++) l1.set(`old${String(i)}`, { deadAt: 1_000 + i }, 0);
    for (let i = 0; i < 1_000; i++) expect(l1.set(`new${String(i)}`, { deadAt: 50_000 }, 1_000 + i)).toBe(true);
    expect(l1.expired).toBe(1_000);
    expect(l1.fullSkips).toBe(0);
    expect(l1.get('old999')).toBeUndefined();
    // Two rows asked about per newcomer (the dead one and the live one after it); a walk per newcomer asked 1,000.
    expect(asked()).toBeLessThanOrEqual(2_000);
  });

  it('inserts, reclaims and skips as specified, through a long churn of inserts, replacements, deletes, sweeps and dying rows', () => {
    const max = 40;
    const { l1 } = counted(max);
    // The spec's rule on an array: insert below the bound; at it, reclaim the dead rows and insert if any went; else skip.
    let model: [string, Row][] = [];
    let skips = 0;
    let expired = 0;
    const reclaim = (now: number): void => {
      const before = model.length;
      model = model.filter(([, row]) => row.deadAt > now);
      expired += before - model.length;
    };
    const next = sequence(11);
    for (let now = 0; now < 20_000; now++) {
      const key = `k${String(next(120))}`;
      const op = next(20);
      if (op < 16) {
        const row = { deadAt: now + 1 + next(next(4) === 0 ? 50 : 5_000) };
        const at = model.findIndex(([k]) => k === key);
        if (at >= 0) model[at] = [key, row];
        else if (model.length < max) model.push([key, row]);
        else {
          const size = model.length;
          reclaim(now);
          if (model.length < size) model.push([key, row]);
          else skips++;
        }
        l1.set(key, { ...row }, now);
      } else if (op < 19) {
        model = model.filter(([k]) => k !== key);
        l1.delete(key);
      } else {
        reclaim(now);
        l1.sweep(now);
      }
      expect(new Set([...l1.entries()].map(([k]) => k)), `step ${String(now)}`).toEqual(new Set(model.map(([k]) => k)));
    }
    expect(l1.fullSkips).toBe(skips);
    expect(l1.expired).toBe(expired);
    expect(skips).toBeGreaterThan(1_000);
    expect(expired).toBeGreaterThan(1_000);
  });
});
