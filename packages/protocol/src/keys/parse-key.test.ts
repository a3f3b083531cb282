import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BrandedId } from '../ids/branded.js';
import { encodeId } from '../ids/codec.js';
import { parseId } from '../ids/guards.js';
import { MAX_SNOWFLAKE } from '../ids/snowflake.js';
import { cacheChannel, cacheKey } from './cache-keys.js';
import { formatKey } from './format-key.js';
import { parseKey } from './parse-key.js';
import type { ParsedKey } from './parse-key.js';
import { queueKeys } from './queue-keys.js';
import { FIXED_TYPES, JOB_SUBS, STREAM_PARTS } from './registry.js';
import { BUNDLE_KEY, LOCKS_KEY, VERSION_KEY, migrationKey } from './reserve.js';
import { slot } from './slot.js';

const job = parseId('JOB0Nb1VTbfnu4', 'JOB');
const group = parseId('PRT000xY9Wvvcd');
const q = 'orders';

describe('parseKey: every registry row (protocol.md §3.2)', () => {
  it.each(FIXED_TYPES)('fixed %s', (type) => {
    expect(parseKey(`emq:{orders}:${type}`)).toEqual({ kind: 'fixed', queue: q, type });
  });

  it.each([
    ['emq:{orders}:metrics:completed', 'completed', false],
    ['emq:{orders}:metrics:failed', 'failed', false],
    ['emq:{orders}:metrics:completed:data', 'completed', true],
    ['emq:{orders}:metrics:failed:data', 'failed', true],
  ] as const)('%s', (key, metric, data) => {
    expect(parseKey(key)).toEqual({ kind: 'metrics', queue: q, metric, data });
  });

  it('the row', () => {
    expect(parseKey('emq:{orders}:job:JOB0Nb1VTbfnu4')).toEqual({ kind: 'job', queue: q, id: job, sub: null });
  });

  it.each(JOB_SUBS)('job subkey %s', (sub) => {
    expect(parseKey(`emq:{orders}:job:JOB0Nb1VTbfnu4:${sub}`)).toEqual({ kind: 'job', queue: q, id: job, sub });
  });

  it('a lane', () => {
    expect(parseKey('emq:{orders}:g:PRT000xY9Wvvcd:pending')).toEqual({ kind: 'lane', queue: q, group });
  });

  it('a dedup key', () => {
    expect(parseKey('emq:{orders}:de:order-42.v1')).toEqual({ kind: 'dedup', queue: q, dedupId: 'order-42.v1' });
  });

  it('a repeat record, distinct from the repeat index', () => {
    expect(parseKey('emq:{orders}:repeat:nightly')).toEqual({ kind: 'repeatRecord', queue: q, name: 'nightly' });
    expect(parseKey('emq:{orders}:repeat')).toEqual({ kind: 'fixed', queue: q, type: 'repeat' });
  });

  it('the index of parents awaiting children [TS]', () => {
    expect(parseKey('emq:{orders}:waiting-children')).toEqual({ kind: 'fixed', queue: q, type: 'waiting-children' });
    expect(formatKey({ kind: 'fixed', queue: q, type: 'waiting-children' })).toBe(queueKeys(q).waitingChildren);
  });

  it('a stream and its watermark', () => {
    expect(parseKey('emq:{orders}:stream:audit')).toEqual({ kind: 'stream', queue: q, name: 'audit', archived: false });
    expect(parseKey('emq:{orders}:stream:audit:archived')).toEqual({ kind: 'stream', queue: q, name: 'audit', archived: true });
    expect(parseKey('emq:{orders}:stream:archived')).toEqual({ kind: 'stream', queue: q, name: 'archived', archived: false });
    expect(parseKey('emq:{orders}:stream:audit:dead')).toEqual({ kind: 'deadLetters', queue: q, name: 'audit' });
    expect(parseKey('emq:{orders}:stream:dead')).toEqual({ kind: 'stream', queue: q, name: 'dead', archived: false });
    expect(parseKey('emq:{orders}:stream:audit:msgids')).toEqual({ kind: 'streamPart', queue: q, name: 'audit', part: 'msgids' });
    expect(parseKey('emq:{orders}:stream:audit:msgids:until')).toEqual({ kind: 'streamPart', queue: q, name: 'audit', part: 'msgids:until' });
    expect(parseKey('emq:{orders}:stream:audit:order')).toEqual({ kind: 'streamPart', queue: q, name: 'audit', part: 'order' });
    expect(parseKey('emq:{orders}:stream:audit:paused')).toEqual({ kind: 'streamPart', queue: q, name: 'audit', part: 'paused' });
    expect(parseKey('emq:{orders}:stream:order')).toEqual({ kind: 'stream', queue: q, name: 'order', archived: false });
  });

  it('the reserve members', () => {
    expect(parseKey(VERSION_KEY)).toEqual({ kind: 'reserve', member: 'version' });
    expect(parseKey(LOCKS_KEY)).toEqual({ kind: 'reserve', member: 'locks' });
    expect(parseKey(BUNDLE_KEY)).toEqual({ kind: 'reserve', member: 'bundle' });
    expect(parseKey('{emq}:migration:orders')).toEqual({ kind: 'reserve', member: 'migration', queue: q });
  });

  it('an L2 cache key (cache.md §2)', () => {
    expect(parseKey('ecc:{users}:USR0KHTOWnGLuC')).toEqual({ kind: 'cache', table: 'users', id: 'USR0KHTOWnGLuC' });
  });

  it('a job id of any namespace; the namespace is the scripts’ concern', () => {
    expect(parseKey('emq:{orders}:job:USR0KHTOWnGLuC')).toMatchObject({ kind: 'job', id: 'USR0KHTOWnGLuC' });
  });
});

describe('parseKey: unclassified', () => {
  it.each([
    '',
    'pending',
    'emq',
    'emq:orders:pending',
    'emq:{orders}pending',
    'emq:{orders}:',
    'emq:{}:pending',
    'emq:{emq}:pending',
    'emq:{a b}:pending',
    'emq:{orders:pending',
    'emq:{orders}:wait',
    'emq:{orders}:failed',
    'emq:{orders}:prioritized',
    'emq:{orders}:events',
    'emq:{orders}:pending:x',
    'emq:{orders}:flow',
    'emq:{orders}:flow:inbox',
    'emq:{orders}:metrics',
    'emq:{orders}:metrics:',
    'emq:{orders}:metrics:data',
    'emq:{orders}:metrics:completed:data:data',
    'emq:{orders}:metrics:delayed',
    'emq:{orders}:job:',
    'emq:{orders}:job:JOB0Nb1VTbfnu',
    'emq:{orders}:job:job0Nb1VTbfnu4',
    'emq:{orders}:job:JOBzzzzzzzzzzz',
    'emq:{orders}:job:JOB0Nb1VTbfnu4:',
    'emq:{orders}:job:JOB0Nb1VTbfnu4:completed',
    'emq:{orders}:job:JOB0Nb1VTbfnu4:lock:x',
    'emq:{orders}:job:JOB0Nb1VTbfnu4xlock',
    'emq:{orders}:job:JOB0Nb1VTbfnu4x',
    'emq:{orders}:g:PRT000xY9Wvvcd',
    'emq:{orders}:g:PRT000xY9Wvvcd:active',
    'emq:{orders}:g:PRT000xY9Wvvcd:pending:x',
    'emq:{orders}:g:bad:pending',
    'emq:{orders}:de:',
    'emq:{orders}:de:a:b',
    `emq:{orders}:de:${'x'.repeat(256)}`,
    'emq:{orders}:repeat:',
    'emq:{orders}:repeat:a b',
    'emq:{orders}:stream:',
    'emq:{orders}:stream::archived',
    'emq:{orders}:stream:a:b',
    'emq:{orders}:stream:a:archived:x',
    `emq:{orders}:stream:${'x'.repeat(129)}`,
    `emq:{${'q'.repeat(129)}}:pending`,
    '{emq}:',
    '{emq}:other',
    '{emq}:versions',
    '{emq}:version:x',
    '{emq}:migration:',
    '{emq}:migration:emq',
    '{emq}:migration:a:b',
    '{emq}version',
    '{EMQ}:version',
    'ecc:{users}:coh',
    'ecc:{users}:',
    'ecc:{users}:USR0KHTOWnGLu',
    'ecc:{users}:USR0KHTOWnGLuC:x',
    'ecc:{}:USR0KHTOWnGLuC',
    `ecc:{${'t'.repeat(121)}}:USR0KHTOWnGLuC`,
    'ecc:users:USR0KHTOWnGLuC',
    'bull:orders:wait',
  ])('%j', (key) => {
    expect(parseKey(key)).toEqual({ kind: 'unclassified', key });
  });

  it('reads the keyed namespace forms [TS] and round-trips them', () => {
    const forms = [
      ['ecc:{users}:k:user:42', { kind: 'cacheEntry', table: 'users', key: 'user:42' }],
      ['ecc:{users}:l:https://x.test/a?b=1', { kind: 'cacheLease', table: 'users', key: 'https://x.test/a?b=1' }],
      ['ecc:{users}:tag:team:7', { kind: 'cacheTag', table: 'users', tag: 'team:7' }],
      ['ecc:{users}:log', { kind: 'cacheLog', table: 'users' }],
    ] as const;
    for (const [key, parts] of forms) {
      expect(parseKey(key)).toEqual(parts);
      expect(formatKey(parts)).toBe(key);
    }
    expect(parseKey('ecc:{users}:k:').kind).toBe('unclassified');
    expect(parseKey('ecc:{users}:x:a').kind).toBe('unclassified');
  });

  it('leaves pub/sub channels unclassified; they are not keys', () => {
    expect(parseKey(queueKeys(q).events).kind).toBe('unclassified');
    expect(parseKey(cacheChannel('users')).kind).toBe('unclassified');
  });
});

const CHARSET_TEXT = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-';
const CHARSET = Array.from({ length: CHARSET_TEXT.length }, (_, i) => CHARSET_TEXT.charAt(i));
const name = (max: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: fc.constantFrom(...CHARSET), minLength: 1, maxLength: Math.min(max, 12) }),
    fc.string({ unit: fc.constantFrom(...CHARSET), minLength: 1, maxLength: max }),
  );
const queue = name(128).filter((value) => value !== 'emq');
const id: fc.Arbitrary<BrandedId> = fc
  .tuple(fc.string({ unit: fc.constantFrom(...CHARSET.slice(0, 26)), minLength: 3, maxLength: 3 }), fc.bigInt({ min: 0n, max: MAX_SNOWFLAKE }))
  .map(([ns, s]) => encodeId(ns, s));

const parts: fc.Arbitrary<ParsedKey> = fc.oneof(
  fc.record({ kind: fc.constant('fixed' as const), queue, type: fc.constantFrom(...FIXED_TYPES) }),
  fc.record({ kind: fc.constant('metrics' as const), queue, metric: fc.constantFrom('completed' as const, 'failed' as const), data: fc.boolean() }),
  fc.record({ kind: fc.constant('job' as const), queue, id, sub: fc.constantFrom(null, ...JOB_SUBS) }),
  fc.record({ kind: fc.constant('lane' as const), queue, group: id }),
  fc.record({ kind: fc.constant('dedup' as const), queue, dedupId: name(255) }),
  fc.record({ kind: fc.constant('repeatRecord' as const), queue, name: name(255) }),
  fc.record({ kind: fc.constant('stream' as const), queue, name: name(128), archived: fc.boolean() }),
  fc.record({ kind: fc.constant('deadLetters' as const), queue, name: name(128) }),
  fc.record({ kind: fc.constant('streamPart' as const), queue, name: name(128), part: fc.constantFrom(...STREAM_PARTS) }),
  fc.record({ kind: fc.constant('reserve' as const), member: fc.constantFrom('version' as const, 'locks' as const, 'bundle' as const) }),
  fc.record({ kind: fc.constant('reserve' as const), member: fc.constant('migration' as const), queue }),
  fc.record({ kind: fc.constant('cache' as const), table: name(120), id }),
);

describe('round-trip law (protocol.md §3.4)', () => {
  it('parse(build(parts)) returns the parts', () => {
    fc.assert(
      fc.property(parts, (p) => {
        expect(parseKey(formatKey(p))).toEqual(p);
      }),
      { numRuns: 5000 },
    );
  });

  it('builds through the public builders', () => {
    expect(formatKey({ kind: 'job', queue: q, id: job, sub: 'logs' })).toBe(queueKeys(q).jobSub(job, 'logs'));
    expect(formatKey({ kind: 'fixed', queue: q, type: 'flow:outbox' })).toBe('emq:{orders}:flow:outbox');
    expect(formatKey({ kind: 'reserve', member: 'migration', queue: q })).toBe(migrationKey(q));
    expect(formatKey({ kind: 'cache', table: 'users', id: job })).toBe(cacheKey('users', job));
    expect(formatKey({ kind: 'unclassified', key: 'anything' })).toBe('anything');
  });

  it('classifies a key only when it is exactly what the builders produce', () => {
    // Valid keys with one small edit, so that near misses of every form are common.
    const fragment = fc.constantFrom(':', '{', '}', 'a', ' ', ':pending', ':archived', ':data', ':lock', 'JOB0Nb1VTbfnu4');
    const edit = fc.constantFrom('none', 'insert', 'delete', 'replace', 'truncate');
    const nearKeys = fc.tuple(parts.map(formatKey), edit, fc.nat(), fragment).map(([key, how, at, text]) => {
      const i = at % (key.length + 1);
      switch (how) {
        case 'none':
          return key;
        case 'insert':
          return key.slice(0, i) + text + key.slice(i);
        case 'delete':
          return key.slice(0, i) + key.slice(i + 1);
        case 'replace':
          return key.slice(0, i) + text + key.slice(i + text.length);
        case 'truncate':
          return key.slice(0, i);
      }
    });
    fc.assert(
      fc.property(nearKeys, (key) => {
        const parsed = parseKey(key);
        if (parsed.kind === 'unclassified') return;
        expect(formatKey(parsed)).toBe(key);
        if (parsed.kind !== 'reserve' && 'queue' in parsed) expect(slot(key)).toBe(slot(`{${parsed.queue}}`));
      }),
      { numRuns: 20_000 },
    );
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (key) => {
        expect(parseKey(key).kind).toBeTypeOf('string');
      }),
    );
  });
});
