import { CodecError, KindError, mintId } from '@echo/protocol/cache';
import { describe, expect, it } from 'vitest';
import { jsonCodec } from '../src/base/codec.js';
import { expiresAt } from '../src/tables/expiry.js';
import { decodeFrame, encodeFrame } from '../src/tables/frame.js';
import { CorruptL2FrameError, FlightCrashedError, bufferCodec, stringCodec } from '../src/index.js';
import { Ring } from '../src/coherence/ring.js';
import { checkKind } from '../src/tables/kind-law.js';
import { Flights } from '../src/core/single-flight.js';

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

