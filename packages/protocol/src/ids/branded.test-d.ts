import { describe, expectTypeOf, it } from 'vitest';
import type { BrandedId, EvtId, JobId } from './branded.js';
import { IdMinter, decodeId, encodeId, mintId, parseId } from './index.js';

describe('BrandedId', () => {
  it('is nominal per namespace', () => {
    expectTypeOf<BrandedId<'USR'>>().not.toExtend<JobId>();
    expectTypeOf<EvtId>().not.toExtend<JobId>();
    expectTypeOf<JobId>().not.toExtend<EvtId>();

    const usr = encodeId('USR', 1n);
    // @ts-expect-error a USR id is not a job id
    const _job: JobId = usr;
  });

  it('is not forgeable from a plain string', () => {
    expectTypeOf<string>().not.toExtend<JobId>();
    expectTypeOf<string>().not.toExtend<BrandedId>();

    // @ts-expect-error a string literal is not a branded id
    const _wide: BrandedId = 'JOB0Nb1VTbfnu4';
    // @ts-expect-error nor is it a job id
    const _narrow: JobId = 'JOB0Nb1VTbfnu4';
  });

  it('widens to string and to the wide form', () => {
    expectTypeOf<JobId>().toExtend<string>();
    expectTypeOf<JobId>().toExtend<BrandedId>();
    expectTypeOf<EvtId>().toExtend<BrandedId>();

    const job = parseId('JOB0Nb1VTbfnu4', 'JOB');
    const _asString: string = job;
    const _asWide: BrandedId = job;
  });
});

describe('the constructors carry the namespace', () => {
  it('types each result by its namespace literal', () => {
    expectTypeOf(encodeId('JOB', 0n)).toEqualTypeOf<JobId>();
    expectTypeOf(parseId('EVT000xY9Wvvcd', 'EVT')).toEqualTypeOf<EvtId>();
    expectTypeOf(parseId('EVT000xY9Wvvcd')).toEqualTypeOf<BrandedId>();
    expectTypeOf(mintId('JOB')).toEqualTypeOf<JobId>();
    expectTypeOf(new IdMinter({ node: 1 }).mint('EVT')).toEqualTypeOf<EvtId>();
    expectTypeOf(decodeId('JOB0Nb1VTbfnu4').snowflake).toEqualTypeOf<bigint>();
  });

  it('requires a bigint snowflake', () => {
    // @ts-expect-error a number would lose precision above 2^53
    encodeId('JOB', 5);
  });
});
