import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors/validation.js';
import { jsonCodec } from './json-codec.js';

describe('jsonCodec', () => {
  it('round-trips JSON values from text and from UTF-8 bytes', () => {
    const codec = jsonCodec<{ a: number[]; s: string }>();
    const text = codec.encode({ a: [1, 2], s: 'é' });
    expect(codec.decode(text)).toEqual({ a: [1, 2], s: 'é' });
    expect(codec.decode(Buffer.from(text, 'utf8'))).toEqual({ a: [1, 2], s: 'é' });
  });

  it('refuses what JSON cannot carry, and text that is not JSON, with a CodecError', () => {
    expect(() => jsonCodec<bigint>().encode(1n)).toThrow(CodecError);
    expect(() => jsonCodec<undefined>().encode(undefined)).toThrow(CodecError);
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    expect(() => jsonCodec<unknown>().encode(cycle)).toThrow(CodecError);
    expect(() => jsonCodec<unknown>().decode('{nope')).toThrow(CodecError);
  });

  it('is one shared object, so a default codec can be recognised', () => {
    expect(jsonCodec<number>()).toBe(jsonCodec<string>());
  });
});
