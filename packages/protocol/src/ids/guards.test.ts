import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, MalformedIdError } from '../errors/validation.js';
import { KindError } from '../errors/wire.js';
import { assertBrandedId, idUnixMs, isBrandedId, parseId } from './guards.js';

describe('isBrandedId / assertBrandedId', () => {
  it('accepts any valid namespace', () => {
    expect(isBrandedId('USR0KHTOWnGLuC')).toBe(true);
    expect(isBrandedId('JOB0Nb1VTbfnu4')).toBe(true);
    expect(() => assertBrandedId('PRT00000000000')).not.toThrow();
  });

  it.each([['USR0KHTOWnGLu'], ['usr0KHTOWnGLuC'], ['USRzzzzzzzzzzz'], [''], [null], [14], [Symbol('x')], [{}]])(
    'refuses %s',
    (value) => {
      expect(isBrandedId(value)).toBe(false);
      expect(() => assertBrandedId(value)).toThrow(MalformedIdError);
    },
  );
});

describe('parseId', () => {
  it('returns a valid id unchanged', () => {
    expect(parseId('JOB0Nb1VTbfnu4')).toBe('JOB0Nb1VTbfnu4');
    expect(parseId('JOB0Nb1VTbfnu4', 'JOB')).toBe('JOB0Nb1VTbfnu4');
  });

  it('refuses a malformed id with MalformedIdError', () => {
    expect(() => parseId('JOB0Nb1VTbfnu', 'JOB')).toThrow(MalformedIdError);
  });

  it('refuses the wrong namespace with KindError', () => {
    const attempt = (): unknown => parseId('USR0KHTOWnGLuC', 'JOB');
    expect(attempt).toThrow(KindError);
    expect(attempt).toThrow('expected JOB id, got USR0KHTOWnGLuC');
  });

  it('refuses bus.md §3 ORD000xY9Wvvcd as an EVT id', () => {
    expect(() => parseId('ORD000xY9Wvvcd', 'EVT')).toThrow(KindError);
  });

  it('refuses a namespace argument no id could carry', () => {
    expect(() => parseId('JOB0Nb1VTbfnu4', 'job')).toThrow(InvalidArgumentError);
  });
});

describe('idUnixMs', () => {
  it('reads the mint time', () => {
    expect(idUnixMs('USR0KHTOWnGLuC')).toBe(1769526697641);
    expect(idUnixMs('EVT000xY9Wvvcd')).toBe(1704117200000);
  });

  it('refuses a malformed id', () => {
    expect(() => idUnixMs('nope')).toThrow(MalformedIdError);
  });
});
