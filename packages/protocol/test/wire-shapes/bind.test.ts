import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, MalformedIdError } from '../../src/index.js';
import { scripts } from '../../src/scripts/catalog.js';
import { bind } from '../../src/transitions/bind.js';
import * as t from '../../src/transitions/index.js';
import { J, P } from './shape.js';

describe('bind', () => {
  it('refuses a missing, an unknown or a trailing value, and a bad id, before anything is sent', () => {
    const s = scripts().enqueue;
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args: { id: J } })).toThrow(InvalidArgumentError);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args: { id: J, payload: 'p', extra: 1 } })).toThrow(/extra/);
    expect(() => bind(scripts().queue_pause, { scope: { q: 'orders' }, restArgs: ['x'] })).toThrow(InvalidArgumentError);
    expect(() => bind(s, { scope: { q: 'orders' }, args: { id: J, payload: 'p' } })).toThrow(/id/);
    expect(() => t.enqueue({ queue: 'orders', id: 'nope', payload: 'p' })).toThrow(MalformedIdError);
    expect(() => t.claim({ queue: 'orders', leaseMs: 0 })).toThrow(InvalidArgumentError);
  });

  it("places a @tail layout's keys in the header's order, and refuses a missing, an unknown or a doubled tail", () => {
    const s = scripts().complete;
    const args = { id: J, token: '1', mode: 'sq', parent_id: P, result: '', parent_queue: '' };
    // Given in another order than complete.lua's `@tail sq` line: bind writes the header's.
    const keys = { waiting_children: 'W', parent_row: 'R', parent_processed: 'PP', parent_deps: 'D' };
    expect(bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys } }).keys.slice(-4)).toEqual(['D', 'PP', 'R', 'W']);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'zz', keys } })).toThrow(/no @tail zz/);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys: { ...keys, extra: 'X' } } })).toThrow(/extra/);
    const { parent_row: _dropped, ...missing } = keys;
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys: missing } })).toThrow(/parent_row/);
    expect(() => bind(s, { scope: { q: 'orders', id: J }, args, tail: { layout: 'sq', keys }, restKeys: ['X'] })).toThrow(/not both/);
  });
});
