import { describe, expect, it } from 'vitest';
import { MalformedReplyError } from '../errors/wire.js';
import * as t from './index.js';
import { scripts } from '../scripts/catalog.js';
import { transition, type Transition } from './transition.js';

// Reply parsers check shapes: a reply of the wrong shape is a MalformedReplyError naming the script,
// never a value read from the wrong type. Pure: the parsers are fed replies, no server.
const J = 'JOB0Nb1VTbfnu4';
const G = 'USR0Nb1VTbfnu4';

function malformed<R>(tr: Transition<R>, reply: unknown): MalformedReplyError {
  try {
    tr.parse(reply);
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedReplyError);
    expect((error as MalformedReplyError).command).toBe(`EVALSHA ${tr.script.name}`);
    return error as MalformedReplyError;
  }
  throw new Error(`${tr.script.name} accepted ${JSON.stringify(reply)}`);
}

describe('reply parsers check shapes', () => {
  const claim = t.claim({ queue: 'orders', leaseMs: 1000 });

  it('a claim reads its entry, and refuses one with the wrong types', () => {
    expect(claim.parse([])).toBeUndefined();
    expect(claim.parse([J, 'p', 2, null, null, null])).toMatchObject({ id: J, payload: 'p', attempts: 2, parent: undefined });
    expect(malformed(claim, 'OK').message).toContain('not a list');
    expect(malformed(claim, [J, 'p', 'two', null, null, null]).message).toContain('the attempts is not an integer');
    expect(malformed(claim, [J, 'p', 2]).message).toContain('a claim entry is not a list of 6 or more');
    expect(malformed(claim, [J, 'p', 2, 7, null, null]).message).toContain('the parent is not a string');
    malformed(t.claimBatch({ queue: 'orders', leaseMs: 1000, size: 2 }), [[J, 'p', 1, null, null, null], 'x']);
    malformed(t.laneClaim({ queue: 'orders', leaseMs: 1000 }), [J, 'p', 1, 5]);
    expect(t.laneClaim({ queue: 'orders', leaseMs: 1000 }).parse([J, 'p', 1, G])).toMatchObject({ group: G });
  });

  it('admissions, settlements and recovery refuse replies of another shape', () => {
    malformed(t.enqueueMany({ queue: 'orders', items: [{ id: J, payload: 'p' }] }), 1);
    malformed(t.enqueueMany({ queue: 'orders', items: [{ id: J, payload: 'p' }] }), ['one']);
    const dedup = t.enqueueDedup({ queue: 'orders', id: J, payload: 'p', dedupId: 'd' });
    expect(dedup.parse([0, J])).toEqual({ status: 'duplicate', existingId: J });
    malformed(dedup, [1]);
    malformed(dedup, [1, { id: J }]);
    malformed(t.completeBatch({ queue: 'orders', jobs: [{ id: J, attempts: 1 }] }), [1, 'x']);
    malformed(t.extendLocks({ queue: 'orders', leaseMs: 10, jobs: [{ id: J, attempts: 1 }] }), [J, 3]);
    malformed(t.sweepStalled({ queue: 'orders', maxStalled: 1, limit: 5 }), [[J], [1]]);
    const round = t.completeAndClaim({ queue: 'orders', jobs: [{ id: J, attempts: 1 }], size: 1, leaseMs: 100 });
    expect(round.parse([[1], []])).toEqual({ completions: ['ok'], claimed: [], limitedMs: 0 });
    malformed(round, [[1], 'none']);
    malformed(round, [[1], [], 'soon']);
  });

  it('reads refuse a word outside their set, and lists of the wrong shape', () => {
    const lookup = t.stateLookup({ queue: 'orders', id: J });
    expect(lookup.parse('pending')).toBe('pending');
    expect(malformed(lookup, 'elsewhere').message).toContain('one of pending');
    malformed(t.schedulerDue({ queue: 'orders', limit: 5 }), ['nightly', 'soon']);
    malformed(t.workerList({ queue: 'orders', limit: 5 }), 'none');
  });

  it('stream transitions check their nested replies', () => {
    const claimed = t.streamClaim({ queue: 'orders', stream: 'audit', group: 'g', consumer: 'c', mode: 'idle', cursor: '0-0', count: 10, minIdleMs: 1, maxDeliveries: 0 });
    expect(claimed.parse(['0-0', [['1-0', 2, ['f', 'v']]], 0])).toEqual({ cursor: '0-0', entries: [{ xid: '1-0', attempts: 2, pairs: ['f', 'v'] }], deadLettered: 0 });
    malformed(claimed, ['0-0', [['1-0', 'twice', []]], 0]);
    malformed(claimed, ['0-0', 'entries', 0]);
    malformed(t.streamRedrive({ queue: 'orders', stream: 'audit', records: ['1-0'] }), [1, [2]]);
  });

  it('an error that is not about the shape passes through unchanged', () => {
    const tr = transition({ script: scripts().counts, keys: [], args: [] }, () => {
      throw new RangeError('not a shape');
    });
    expect(() => tr.parse([])).toThrow(RangeError);
  });
});
