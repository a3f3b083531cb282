import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidNameError, MalformedIdError } from '../errors/validation.js';
import type { BrandedId } from '../ids/branded.js';
import { parseId } from '../ids/guards.js';
import { queueKeys } from './queue-keys.js';
import type { JobSub } from './registry.js';
import { slot } from './slot.js';

const job = parseId('JOB0Nb1VTbfnu4', 'JOB');
const group = parseId('PRT000xY9Wvvcd');
const keys = queueKeys('orders');

describe('queueKeys fixed keys (protocol.md §3.2)', () => {
  it('builds every fixed key byte for byte', () => {
    expect({ ...keys }).toMatchObject({
      queue: 'orders',
      base: 'emq:{orders}:',
      pending: 'emq:{orders}:pending',
      active: 'emq:{orders}:active',
      schedule: 'emq:{orders}:schedule',
      dead: 'emq:{orders}:dead',
      meta: 'emq:{orders}:meta',
      limiter: 'emq:{orders}:limiter',
      ring: 'emq:{orders}:ring',
      wake: 'emq:{orders}:wake',
      paused: 'emq:{orders}:paused',
      gactive: 'emq:{orders}:gactive',
      glimit: 'emq:{orders}:glimit',
      gweight: 'emq:{orders}:gweight',
      repeat: 'emq:{orders}:repeat',
      flowOutbox: 'emq:{orders}:flow:outbox',
      workers: 'emq:{orders}:workers',
      workersInfo: 'emq:{orders}:workers:info',
      grate: 'emq:{orders}:grate',
      waitingChildren: 'emq:{orders}:waiting-children',
      completed: 'emq:{orders}:completed',
      deadAt: 'emq:{orders}:dead:at',
      journal: 'emq:{orders}:journal',
      outcomes: 'emq:{orders}:outcomes',
      expired: 'emq:{orders}:expired',
      metricsCompleted: 'emq:{orders}:metrics:completed',
      metricsFailed: 'emq:{orders}:metrics:failed',
      metricsCompletedData: 'emq:{orders}:metrics:completed:data',
      metricsFailedData: 'emq:{orders}:metrics:failed:data',
      events: 'emq:{orders}:events',
      jobRoot: 'emq:{orders}:job:',
      laneRoot: 'emq:{orders}:g:',
      dedupRoot: 'emq:{orders}:de:',
    });
  });

  it('spends 17 bytes before the job id for a six-byte queue (protocol.md §2)', () => {
    expect(Buffer.byteLength(keys.jobRoot)).toBe(17);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(keys)).toBe(true);
  });

  it('puts every key of a queue in one slot', () => {
    const all = [
      ...Object.entries(keys)
        .filter(([name, value]) => typeof value === 'string' && name !== 'queue')
        .map(([, value]) => value as string),
      keys.job(job),
      keys.lane(group),
      keys.dedup('d1'),
      keys.stream('s'),
    ];
    expect(new Set(all.map(slot))).toEqual(new Set([slot('{orders}')]));
  });
});

describe('queueKeys parameterised keys', () => {
  it('builds the row and every job subkey', () => {
    expect(keys.job(job)).toBe('emq:{orders}:job:JOB0Nb1VTbfnu4');
    const subs: readonly JobSub[] = ['lock', 'logs', 'dependencies', 'processed', 'failed', 'unsuccessful', 'attempts'];
    expect(subs.map((sub) => keys.jobSub(job, sub))).toEqual(subs.map((sub) => `emq:{orders}:job:JOB0Nb1VTbfnu4:${sub}`));
    expect(keys.jobSub(job, 'logs')).toBe('emq:{orders}:job:JOB0Nb1VTbfnu4:logs');
  });

  it('accepts any namespace for job ids; admission scripts enforce JOB', () => {
    expect(keys.job(parseId('USR0KHTOWnGLuC'))).toBe('emq:{orders}:job:USR0KHTOWnGLuC');
  });

  it('builds a lane, a dedup key, a repeat record, a stream and its watermark', () => {
    expect(keys.lane(group)).toBe('emq:{orders}:g:PRT000xY9Wvvcd:pending');
    expect(keys.dedup('order-42.v1')).toBe('emq:{orders}:de:order-42.v1');
    expect(keys.repeatRecord('nightly_report')).toBe('emq:{orders}:repeat:nightly_report');
    expect(keys.stream('audit')).toBe('emq:{orders}:stream:audit');
    expect(keys.archived('audit')).toBe('emq:{orders}:stream:audit:archived');
    expect(keys.deadLetters('audit')).toBe('emq:{orders}:stream:audit:dead');
    expect(keys.streamPart('audit', 'msgids:until')).toBe('emq:{orders}:stream:audit:msgids:until');
  });
});

describe('queueKeys refusals: a malformed value never becomes a key', () => {
  const bad = (value: string): BrandedId => value as BrandedId;

  it.each(['', 'emq', 'a:b', '{x}', 'x'.repeat(129)])('refuses queue %j', (q) => {
    expect(() => queueKeys(q)).toThrow(InvalidNameError);
  });

  it('refuses a non-string queue from untyped callers', () => {
    expect(() => queueKeys(7 as unknown as string)).toThrow(InvalidNameError);
  });

  it.each(['JOB0Nb1VTbfnu', 'job0Nb1VTbfnu4', 'JOBzzzzzzzzzzz', 'JOB0Nb1VTbfnu4:lock', '*'])('refuses id %j', (id) => {
    expect(() => keys.job(bad(id))).toThrow(MalformedIdError);
    expect(() => keys.jobSub(bad(id), 'lock')).toThrow(MalformedIdError);
    expect(() => keys.lane(bad(id))).toThrow(MalformedIdError);
  });

  it('refuses an unregistered job subkey', () => {
    expect(() => keys.jobSub(job, 'completed' as JobSub)).toThrow(InvalidArgumentError);
    expect(() => keys.jobSub(job, '' as JobSub)).toThrow(InvalidArgumentError);
  });

  it('refuses bad dedup ids, repeat names and stream names', () => {
    expect(() => keys.dedup('')).toThrow(InvalidNameError);
    expect(() => keys.dedup('a:b')).toThrow(InvalidNameError);
    expect(() => keys.dedup('x'.repeat(256))).toThrow(InvalidNameError);
    expect(keys.dedup('x'.repeat(255))).toHaveLength(16 + 255);
    expect(() => keys.repeatRecord('a b')).toThrow(InvalidNameError);
    expect(() => keys.stream('a:archived')).toThrow(InvalidNameError);
    expect(() => keys.archived('x'.repeat(129))).toThrow(InvalidNameError);
  });
});
