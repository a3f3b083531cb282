import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/index.js';
import * as t from '../../src/transitions/index.js';
import { J, P, G, q, shapes } from './shape.js';

const shape = shapes('claims');

describe('claims', () => {
  const flat = [q('pending'), q('active'), q('meta'), q('job:'), q('limiter'), q('events'), q('journal'), q('expired'), q('de:')];
  const lane = [q('ring'), q('active'), q('meta'), q('gactive'), q('glimit'), q('job:'), q('g:')];
  it('claim and bclaim, with and without markers', () => {
    expect(shape(t.claim({ queue: 'orders', leaseMs: 100 }))).toEqual({ script: 'claim', keys: flat, args: [100] });
    expect(shape(t.claim({ queue: 'orders', leaseMs: 100, markerTtlMs: 200 })).args).toEqual([100, 200]);
    expect(shape(t.claimBatch({ queue: 'orders', leaseMs: 100, size: 5 }))).toEqual({ script: 'bclaim', keys: flat, args: [100, 5] });
  });
  it('claim tickets ride after the marker slot, which reads 0 when no marker was asked for', () => {
    expect(shape(t.claim({ queue: 'orders', leaseMs: 100, ticket: 'w.1' })).args).toEqual([100, 0, 'w.1']);
    expect(shape(t.claimBatch({ queue: 'orders', leaseMs: 100, size: 5, markerTtlMs: 7, ticket: 'w.2' })).args).toEqual([100, 5, 7, 'w.2']);
    expect(shape(t.laneClaim({ queue: 'orders', leaseMs: 100, ticket: 'w.3' })).args).toEqual([100, 0, 'w.3']);
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, ticket: 'w.4' })).args).toEqual([100, 0, '', 'w.4']);
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, size: 3, ticket: 'w.4' })).args).toEqual([100, 0, 3, 'w.4']);
    expect(shape(t.recoverClaims({ queue: 'orders', ticket: 'w.1', sinceMs: 12, leaseMs: 100 }))).toEqual({ script: 'claim_recover', keys: [q('active'), q('job:')], args: ['w.1', 12, 100] });
  });
  it('lane claims', () => {
    const ev = [q('events'), q('journal'), q('expired'), q('de:')];
    expect(shape(t.laneClaim({ queue: 'orders', leaseMs: 100 }))).toEqual({ script: 'gclaim', keys: [...lane, q('limiter'), q('grate'), ...ev], args: [100] });
    expect(shape(t.laneWeightedClaim({ queue: 'orders', leaseMs: 100 }))).toEqual({ script: 'gwclaim', keys: [...lane, q('gweight'), q('limiter'), q('grate'), ...ev], args: [100] });
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, markerTtlMs: 9 }))).toEqual({ script: 'gbclaim', keys: [...lane, q('limiter'), q('grate'), q('gweight'), ...ev], args: [100, 9] });
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, size: 5 })).args).toEqual([100, 0, 5]);
    expect(shape(t.laneBatchClaim({ queue: 'orders', leaseMs: 100, markerTtlMs: 9, size: 5 })).args).toEqual([100, 9, 5]);
    expect(() => t.laneBatchClaim({ queue: 'orders', leaseMs: 100, size: 0 })).toThrow(InvalidArgumentError);
  });
  it('reads claim replies into rows with their flow link', () => {
    const row = t.claim({ queue: 'orders', leaseMs: 100 }).parse([J, 'p', 2, P, null, 'id']);
    expect(row).toEqual({ id: J, payload: 'p', attempts: 2, group: undefined, parent: { id: P, queue: 'orders', policy: 'id' }, options: {} });
    expect(t.claim({ queue: 'orders', leaseMs: 100 }).parse([])).toBeUndefined();
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, G])).toMatchObject({ group: G, parent: undefined, options: {} });
  });
  it('reads the per-job option fields after the spec fields, false meaning absent', () => {
    const full = t.claim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, false, false, false, 'ship', '4', '{"type":"fixed","ms":5}', '250']);
    expect(full?.options).toEqual({ name: 'ship', maxAttempts: 4, backoff: '{"type":"fixed","ms":5}', timeoutMs: 250 });
    expect(t.claim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, false, false, false, false, false, false, false])?.options).toEqual({});
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, G, 'ship', false, false, '9'])?.options).toEqual({ name: 'ship', timeoutMs: 9 });
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(t.claim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, false, false, false, false, false, false, false, tp, 'ro=1'])?.options).toEqual({ trace: { traceparent: tp, tracestate: 'ro=1' } });
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1 }).parse([J, 'p', 1, G, false, false, false, false, tp, false])?.options).toEqual({ trace: { traceparent: tp } });
  });
});
