import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/index.js';
import * as t from '../../src/transitions/index.js';
import { J, P, q, LB, shapes } from './shape.js';

const shape = shapes('settlement');

describe('settlement', () => {
  const settle = (metric: string): string[] => [q('active'), q('pending'), q('schedule'), q('dead'), q(`job:${J}`), q(`metrics:${metric}`), ...LB, q('g:')];
  it('complete: plain, same-queue parent, cross-queue parent', () => {
    expect(shape(t.complete({ queue: 'orders', job: { id: J, attempts: 3 }, publish: true }))).toEqual({
      script: 'complete',
      keys: [...settle('completed'), q('job:'), q('events'), q('meta'), q('completed'), q('de:'), q('journal'), q('outcomes')],
      args: [J, '3', '', '', '', '', '1'],
    });
    const same = t.complete({ queue: 'orders', job: { id: J, attempts: 1, parent: { id: P, queue: 'orders', policy: 'fp' } }, result: 'r' });
    expect(shape(same).keys.slice(19)).toEqual([q(`job:${P}:dependencies`), q(`job:${P}:processed`), q(`job:${P}`), q('waiting-children')]);
    expect(shape(same).args).toEqual([J, '1', 'sq', P, 'r', '']);
    const cross = t.complete({ queue: 'orders', job: { id: J, attempts: 1, parent: { id: P, queue: 'billing', policy: 'fp' } } });
    expect(shape(cross).keys.slice(19)).toEqual([q('flow:outbox')]);
    expect(shape(cross).args).toEqual([J, '1', 'xq', P, '', 'billing']);
  });
  it('complete_batch', () => {
    expect(shape(t.completeBatch({ queue: 'orders', jobs: [{ id: J, attempts: 1 }, { id: P, attempts: 2, result: '{"n":1}' }] }))).toEqual({
      script: 'complete_batch',
      keys: [q('active'), q('pending'), q('schedule'), q('dead'), q('metrics:completed'), ...LB, q('g:'), q('job:'), q('events'), q('meta'), q('completed'), q('de:'), q('journal'), q('outcomes')],
      args: ['', J, '1', '', P, '2', '{"n":1}'],
    });
    expect(t.completeBatch({ queue: 'orders', jobs: [] }).parse([1, -1, -2, -3])).toEqual(['ok', 'gone', 'stale', 'flow']);
  });
  it('complete_claim: the complete_batch keys plus meta and limiter, then publish, lease, size, marker and the pairs', () => {
    expect(shape(t.completeAndClaim({ queue: 'orders', jobs: [{ id: J, attempts: 1 }], size: 4, leaseMs: 100, markerTtlMs: 200, publish: true }))).toEqual({
      script: 'complete_claim',
      keys: [q('active'), q('pending'), q('schedule'), q('dead'), q('metrics:completed'), ...LB, q('g:'), q('job:'), q('events'), q('meta'), q('limiter'), q('completed'), q('de:'), q('journal'), q('outcomes'), q('expired')],
      args: ['1', 100, 4, 200, '', J, '1', ''],
    });
    expect(shape(t.completeAndClaim({ queue: 'orders', jobs: [], size: 0, leaseMs: 5 })).args).toEqual(['', 5, 0, 0, '']);
    expect(shape(t.completeAndClaim({ queue: 'orders', jobs: [], size: 1, leaseMs: 5, ticket: 'w.1' })).args).toEqual(['', 5, 1, 0, 'w.1']);
    const round = t.completeAndClaim({ queue: 'orders', jobs: [], size: 1, leaseMs: 5 }).parse([[1, -3], [[J, 'p', 1, P, 'billing', null]]]);
    expect(round).toEqual({
      completions: ['ok', 'flow'],
      claimed: [{ id: J, payload: 'p', attempts: 1, group: undefined, parent: { id: P, queue: 'billing', policy: 'fp' }, options: {} }],
      limitedMs: 0,
    });
    expect(t.completeAndClaim({ queue: 'orders', jobs: [], size: 1, leaseMs: 5 }).parse([[], [], 250]).limitedMs).toBe(250);
    expect(() => t.completeAndClaim({ queue: 'orders', jobs: [], size: -1, leaseMs: 5 })).toThrow(InvalidArgumentError);
  });
  it('retry: plain and with a parent', () => {
    expect(shape(t.retry({ queue: 'orders', job: { id: J, attempts: 2 }, delayMs: 10, maxAttempts: 3, error: 'boom' }))).toEqual({
      script: 'retry',
      keys: [...settle('failed'), q('job:'), q('meta'), q('dead:at'), q('de:'), q('events'), q('journal')],
      args: [J, '2', 10, 3, 'boom', '', '', ''],
    });
    expect(shape(t.retry({ queue: 'orders', job: { id: J, attempts: 2 }, delayMs: 10, maxAttempts: 3, error: 'boom', publish: true })).args).toEqual([J, '2', 10, 3, 'boom', '', '', '', '1']);
    const child = t.retry({ queue: 'orders', job: { id: J, attempts: 2, parent: { id: P, queue: 'orders', policy: 'id' } }, delayMs: 0, maxAttempts: 1, error: 'e' });
    expect(shape(child).keys.slice(18)).toEqual([q(`job:${P}:failed`), q(`job:${P}:unsuccessful`), q(`job:${P}:dependencies`), q(`job:${P}`), q('waiting-children')]);
    expect(shape(child).args.slice(5)).toEqual(['sq:id', P, '']);
  });
  it('step jobs: add_children and wait_children', () => {
    const held = { id: J, attempts: 2 };
    expect(shape(t.addChildren({ queue: 'orders', job: held, local: [{ id: P, payload: 'c', policy: 'id' }], remote: 1 }))).toEqual({
      script: 'add_children',
      keys: [q(`job:${J}`), q('active'), q(`job:${J}:dependencies`), q('pending'), q('events'), q('meta'), q('journal'), q(`job:${P}`)],
      args: [J, '2', '1', P, 'c', 'id'],
    });
    expect(shape(t.addChildren({ queue: 'orders', job: held, local: [], remote: -2 })).args).toEqual([J, '2', '-2']);
    expect(t.addChildren({ queue: 'orders', job: held, local: [], remote: 0 }).parse(3)).toEqual({ open: 3 });
    expect(t.addChildren({ queue: 'orders', job: held, local: [], remote: 0 }).parse(-1)).toBe('duplicate');
    expect(() => t.addChildren({ queue: 'orders', job: held, local: [], remote: 0.5 })).toThrow(InvalidArgumentError);
    expect(shape(t.waitChildren({ queue: 'orders', job: held }))).toEqual({
      script: 'wait_children',
      keys: [q('active'), q(`job:${J}`), q(`job:${J}:dependencies`), q('waiting-children'), q('job:')],
      args: [J, '2'],
    });
  });
  it('delay and lease extensions', () => {
    expect(shape(t.delay({ queue: 'orders', job: { id: J, attempts: 1 }, until: 50 }))).toEqual({
      script: 'delay',
      keys: [q('active'), q('schedule'), q(`job:${J}`), ...LB, q('g:'), q('job:'), q('events'), q('meta'), q('journal')],
      args: [J, '1', 'in', 50],
    });
    expect(shape(t.delay({ queue: 'orders', job: { id: J, attempts: 1 }, until: 50, publish: true })).args).toEqual([J, '1', 'in', 50, '1']);
    expect(shape(t.extendLock({ queue: 'orders', job: { id: J, attempts: 4 }, leaseMs: 9 }))).toEqual({ script: 'extend_lock', keys: [q('active'), q(`job:${J}`)], args: [J, '4', 9] });
    expect(shape(t.extendLocks({ queue: 'orders', jobs: [{ id: J, attempts: 4 }], leaseMs: 9, markerTtlMs: 18 }))).toEqual({
      script: 'extend_locks',
      keys: [q('active'), q('job:')],
      args: [9, 18, J, '4'],
    });
    expect(shape(t.giveBack({ queue: 'orders', jobs: [{ id: J, attempts: 4 }] }))).toEqual({
      script: 'give_back',
      keys: [q('active'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')],
      args: [J, '4'],
    });
  });
});
