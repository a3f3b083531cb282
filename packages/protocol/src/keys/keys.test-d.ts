import { describe, expectTypeOf, it } from 'vitest';
import type { BrandedId, JobId } from '../ids/branded.js';
import { parseId } from '../ids/guards.js';
import { assertQueueName, parseKey, queueKeys } from './index.js';
import type { FIXED_TYPES, FixedType, JOB_SUBS, JobSub, ParsedKey, ParsedKeyKind } from './index.js';

describe('key types', () => {
  it('takes branded ids, not strings', () => {
    const keys = queueKeys('orders');
    const job: JobId = parseId('JOB0Nb1VTbfnu4', 'JOB');
    expectTypeOf(keys.job(job)).toEqualTypeOf<string>();
    expectTypeOf(keys.lane).parameter(0).toEqualTypeOf<BrandedId>();
    // @ts-expect-error a plain string is not a branded id
    keys.job('JOB0Nb1VTbfnu4');
    // @ts-expect-error nor is it a group id
    keys.lane('PRT000xY9Wvvcd');
  });

  it('accepts only registered job subkeys', () => {
    const keys = queueKeys('orders');
    const job = parseId('JOB0Nb1VTbfnu4', 'JOB');
    keys.jobSub(job, 'logs');
    // @ts-expect-error `completed` is not a job subkey
    keys.jobSub(job, 'completed');
    expectTypeOf<(typeof JOB_SUBS)[number]>().toEqualTypeOf<JobSub>();
    expectTypeOf<(typeof FIXED_TYPES)[number]>().toEqualTypeOf<FixedType>();
  });

  it('exposes read-only keys', () => {
    const keys = queueKeys('orders');
    // @ts-expect-error the key set is frozen
    keys.pending = 'x';
  });

  it('lets builders be destructured', () => {
    const { job } = queueKeys('orders');
    expectTypeOf(job).toEqualTypeOf<(id: BrandedId) => string>();
  });

  it('narrows a parsed key by kind', () => {
    const parsed = parseKey('emq:{orders}:job:JOB0Nb1VTbfnu4');
    expectTypeOf(parsed).toEqualTypeOf<ParsedKey>();
    expectTypeOf<ParsedKeyKind>().toEqualTypeOf<
      'fixed' | 'metrics' | 'job' | 'lane' | 'dedup' | 'repeatRecord' | 'stream' | 'deadLetters' | 'streamPart' | 'reserve' | 'cache' | 'cacheEntry' | 'cacheLease' | 'cacheTag' | 'cacheLog' | 'unclassified'
    >();
    if (parsed.kind === 'job') {
      expectTypeOf(parsed.id).toEqualTypeOf<BrandedId>();
      expectTypeOf(parsed.sub).toEqualTypeOf<JobSub | null>();
    }
    if (parsed.kind === 'reserve' && parsed.member === 'migration') {
      expectTypeOf(parsed.queue).toEqualTypeOf<string>();
    }
  });

  it('narrows an unknown value with assertQueueName', () => {
    const value: unknown = 'orders';
    assertQueueName(value);
    expectTypeOf(value).toEqualTypeOf<string>();
  });
});
