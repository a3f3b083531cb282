import { describe, expect, it } from 'vitest';
import {
  EmqError,
  GoneError,
  KeyLawError,
  KindError,
  LockedError,
  NonMonotonicError,
  RateError,
  ServerError,
  StaleError,
  StateError,
  VersionFenceError,
  claimOrVerify,
  encodeEvent,
  judgeVersion,
  mapReplyError,
  mintId,
  parseEvent,
  parseHeader,
  reconnectDelay,
  InvalidArgumentError,
  MalformedIdError,
} from './support.js';

function reply(message: string): Error {
  const e = new Error(message);
  e.name = 'ReplyError';
  return e;
}

describe('error seam', () => {
  it.each([
    ['EMQKIND job id must be JOB-namespaced', KindError, 'job id must be JOB-namespaced'],
    ['EMQSTALE complete token mismatch', StaleError, 'complete token mismatch'],
    ['EMQSTALE not active', StaleError, 'not active'],
    ['EMQSTALE job gone', GoneError, 'job gone'],
    ['EMQSTATE not paused', StateError, 'not paused'],
    ['EMQLOCK job is locked', LockedError, 'job is locked'],
    ['EMQRATE at concurrency ceiling', RateError, 'at concurrency ceiling'],
  ])('%s maps to its class', (message, type, detail) => {
    const mapped = mapReplyError(reply(message));
    expect(mapped).toBeInstanceOf(type);
    expect(mapped instanceof EmqError && mapped.detail).toBe(detail);
  });

  it('keeps GoneError distinct from StaleError although both are EMQSTALE', () => {
    expect(mapReplyError(reply('EMQSTALE job gone'))).not.toBeInstanceOf(StaleError);
    const gone = mapReplyError(reply('EMQSTALE job gone'));
    expect(gone instanceof EmqError && gone.errorClass).toBe('EMQSTALE');
  });

  it('passes an unknown EMQ class through typed, and other replies as ServerError', () => {
    const unknown = mapReplyError(reply('EMQFUTURE something new'));
    expect(unknown).toBeInstanceOf(EmqError);
    expect(unknown instanceof EmqError && unknown.errorClass).toBe('EMQFUTURE');
    expect(mapReplyError(reply('WRONGTYPE Operation against a key'))).toBeInstanceOf(ServerError);
    expect(mapReplyError(reply('EMQKEYLAW undeclared key x'))).toBeInstanceOf(KeyLawError);
    expect(
      mapReplyError(reply('ERR The ID specified in XADD is equal or smaller than the target stream top item')),
    ).toBeInstanceOf(NonMonotonicError);
  });
});

describe('fence judgement', () => {
  it('accepts the same major and refuses the rest', () => {
    expect(() => judgeVersion('echomq:3.0.0')).not.toThrow();
    expect(() => judgeVersion('echomq:3.12.7')).not.toThrow();
    expect(() => judgeVersion('echomq:4.0.0')).toThrow(VersionFenceError);
    expect(() => judgeVersion(null)).toThrow(/foreign_version/);
    expect(() => judgeVersion('echomq:3.x.0')).toThrow(/foreign_version/);
  });

  it('claims only when absent, and reads back the winner', async () => {
    const store = new Map<string, string>();
    const io = {
      get: (key: string) => Promise.resolve(store.get(key) ?? null),
      setNx: (key: string, value: string) => {
        if (!store.has(key)) store.set(key, value);
        return Promise.resolve('OK');
      },
    };
    expect(await claimOrVerify(io)).toBe('echomq:3.0.0');
    store.set('{emq}:version', 'echomq:3.1.0');
    expect(await claimOrVerify(io)).toBe('echomq:3.1.0');
  });
});

describe('reconnect backoff', () => {
  it('doubles from 100 ms to a 2000 ms cap with jitter in [1, backoff/2+1]', () => {
    expect(reconnectDelay(1, () => 0)).toBe(101);
    expect(reconnectDelay(2, () => 0)).toBe(201);
    expect(reconnectDelay(5, () => 0)).toBe(1601);
    expect(reconnectDelay(6, () => 0)).toBe(2001);
    expect(reconnectDelay(50, () => 0.9999999)).toBe(2000 + 1001);
  });
});

describe('script header', () => {
  it('reads keys, rest keys, args, includes, returns and errors', () => {
    const h = parseHeader(
      ['-- @script x', '-- @purpose Does x', '-- and more.', '-- @key a A', '-- @keys more M', '-- @arg v V', '-- @include core lanes', '-- @returns 1', '-- @error EMQSTATE bad', 'return 1'].join('\n'),
      'x',
    );
    expect(h.name).toBe('x');
    expect(h.purpose).toBe('Does x and more.');
    expect(h.keys.map((k) => k.name)).toEqual(['a']);
    expect(h.restKeys?.name).toBe('more');
    expect(h.args.map((a) => a.name)).toEqual(['v']);
    expect(h.includes).toEqual(['core', 'lanes']);
    expect(h.errors).toEqual(['EMQSTATE bad']);
  });

  it('refuses a header without a name, a purpose or returns, or with an unknown tag', () => {
    expect(() => parseHeader('-- @purpose p\n-- @returns 1', 'x')).toThrow(InvalidArgumentError);
    expect(() => parseHeader('-- @script x\n-- @returns 1', 'x')).toThrow(/purpose/);
    expect(() => parseHeader('-- @script x\n-- @purpose p\n-- @bogus 1\n-- @returns 1', 'x')).toThrow(/@bogus/);
  });
});

describe('lifecycle events', () => {
  it('encodes a flat JSON object and parses it back regardless of key order', () => {
    const job = mintId('JOB');
    const text = encodeEvent('failed', job, { outcome: 'dead' });
    expect(JSON.parse(text)).toEqual({ event: 'failed', job, outcome: 'dead' });
    expect(parseEvent(`{"progress":"50","job":"${job}","event":"progress"}`)).toEqual({ event: 'progress', job, fields: { progress: '50' } });
  });

  it('reports an unknown name as unknown and refuses malformed messages', () => {
    const job = mintId('JOB');
    expect(parseEvent(`{"event":"exploded","job":"${job}"}`)?.event).toBe('unknown');
    expect(parseEvent('not json')).toBeUndefined();
    expect(parseEvent('{"event":"completed"}')).toBeUndefined();
    expect(parseEvent('{"event":"completed","job":"x","n":1}')).toBeUndefined();
    expect(() => encodeEvent('completed', 'nope')).toThrow(MalformedIdError);
  });
});
