import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, MalformedIdError, UnknownStateError } from '../../src/index.js';
import * as t from '../../src/transitions/index.js';
import { J, P, G, q, LB, shapes } from './shape.js';

const shape = shapes('queue-operations');

describe('recovery, operator, lanes, reads, repeat, flows', () => {
  it('recovery', () => {
    expect(shape(t.promote({ queue: 'orders', limit: 5 }))).toEqual({ script: 'promote', keys: [q('schedule'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')], args: [5] });
    expect(shape(t.promoteNext({ queue: 'orders', limit: 5 }))).toEqual({ script: 'promote_next', keys: [q('schedule'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')], args: [5] });
    expect(t.promoteNext({ queue: 'orders', limit: 5 }).parse([2, -1])).toEqual({ moved: 2, nextInMs: -1 });
    expect(shape(t.rescheduleJob({ queue: 'orders', id: J }))).toEqual({ script: 'reschedule_job', keys: [q('schedule'), q('pending'), ...LB, q(`job:${J}`), q('g:'), q('events'), q('meta'), q('journal')], args: [J, 'now', 0] });
    expect(shape(t.rescheduleJob({ queue: 'orders', id: J, inMs: 250 })).args).toEqual([J, 'in', 250]);
    expect(t.rescheduleJob({ queue: 'orders', id: J }).parse(0)).toBe('not_scheduled');
    expect(() => t.rescheduleJob({ queue: 'orders', id: J, inMs: -1 })).toThrow(InvalidArgumentError);
    expect(shape(t.retryDead({ queue: 'orders', limit: 7 }))).toEqual({ script: 'retry_dead', keys: [q('dead'), q('pending'), ...LB, q('job:'), q('g:'), q('dead:at'), q('events'), q('meta'), q('journal')], args: [7] });
    expect(() => t.retryDead({ queue: 'orders', limit: 0 })).toThrow(InvalidArgumentError);
    expect(shape(t.cleanDead({ queue: 'orders', ids: [J, P] }))).toEqual({ script: 'clean_dead', keys: [q('dead'), q('job:'), q('dead:at'), q('de:')], args: [J, P] });
    expect(shape(t.cleanCompleted({ queue: 'orders', ids: [J] }))).toEqual({ script: 'clean_completed', keys: [q('completed'), q('job:')], args: [J] });
    expect(() => t.cleanCompleted({ queue: 'orders', ids: ['nope'] })).toThrow(MalformedIdError);
    expect(() => t.cleanDead({ queue: 'orders', ids: ['nope'] })).toThrow(MalformedIdError);
    expect(shape(t.reap({ queue: 'orders', limit: 5 }))).toEqual({ script: 'reap', keys: [q('active'), q('pending'), ...LB, q('job:'), q('g:'), q('events'), q('meta'), q('journal')], args: [5] });
    const ended = [q('waiting-children'), q('meta'), q('dead:at'), q('de:'), q('events'), q('journal')];
    expect(shape(t.sweepStalled({ queue: 'orders', maxStalled: 1, limit: 5 })).keys).toEqual([q('active'), q('pending'), q('dead'), q('metrics:failed'), ...LB, q('job:'), q('g:'), ...ended]);
    expect(shape(t.sweepStalled({ queue: 'orders', maxStalled: 1, limit: 5, outbox: true })).keys).toEqual([q('active'), q('pending'), q('dead'), q('metrics:failed'), ...LB, q('job:'), q('g:'), ...ended, q('flow:outbox')]);
    expect(shape(t.reapGroup({ queue: 'orders', group: G, limit: 2 }))).toEqual({
      script: 'greap_group',
      keys: [q('active'), q(`g:${G}:pending`), ...LB, q('job:')],
      args: [G, 2],
    });
    expect(shape(t.reprocess({ queue: 'orders', id: J })).keys).toEqual([q(`job:${J}`), q('dead'), q('pending'), ...LB, q('g:'), q('dead:at'), q('events'), q('meta'), q('journal')]);
    expect(shape(t.reprocessCompleted({ queue: 'orders', id: J }))).toEqual({
      script: 'reprocess_completed',
      keys: [q(`job:${J}`), q('completed'), q('pending'), ...LB, q('g:'), q('events'), q('meta'), q('journal')],
      args: [J],
    });
  });
  it('operator', () => {
    expect(shape(t.drain({ queue: 'orders', includeScheduled: true })).keys).toEqual([q('job:'), q('pending'), q('waiting-children'), q('de:'), q('schedule')]);
    expect(shape(t.retentionSet({ queue: 'orders', completed: { count: 100, ageMs: 5000 }, failed: { count: Number.POSITIVE_INFINITY } }))).toEqual({
      script: 'retention_set',
      keys: [q('meta')],
      args: ['100', '5000', '-1', ''],
    });
    expect(shape(t.retentionSet({ queue: 'orders' })).args).toEqual(['0', '', '', '']);
    // An age bound alone keeps completed jobs that young, with no count bound (not none).
    expect(shape(t.retentionSet({ queue: 'orders', completed: { ageMs: 60_000 } })).args).toEqual([String(Number.MAX_SAFE_INTEGER), '60000', '', '']);
    expect(() => t.retentionSet({ queue: 'orders', completed: { count: -2 } })).toThrow(InvalidArgumentError);
    expect(shape(t.removeJob({ queue: 'orders', id: J, dedupId: 'd' }))).toEqual({
      script: 'remove_job',
      keys: [q('pending'), q('active'), q('schedule'), q('dead'), ...LB, q('job:'), q('g:'), q('waiting-children'), q('de:'), q('completed'), q('dead:at'), q('events'), q('meta'), q('journal'), q('de:d')],
      args: [J, 'd', ''],
    });
    expect(shape(t.removeJob({ queue: 'orders', id: J, held: true })).args).toEqual([J, '', '1']);
    expect(shape(t.addLog({ queue: 'orders', id: J, line: 'l', keep: 2 }))).toEqual({ script: 'add_log', keys: [q(`job:${J}`), q(`job:${J}:logs`)], args: ['l', 2] });
    expect(shape(t.clearLogs({ queue: 'orders', id: J, keep: 2 }))).toEqual({ script: 'clear_logs', keys: [q(`job:${J}`), q(`job:${J}:logs`)], args: [2] });
    expect(shape(t.clearLogs({ queue: 'orders', id: J })).args).toEqual([0]);
    expect(() => t.clearLogs({ queue: 'orders', id: J, keep: -1 })).toThrow(InvalidArgumentError);
    expect(shape(t.dedupRelease({ queue: 'orders', dedupId: 'd1', id: J }))).toEqual({ script: 'dedup_release', keys: [q('de:d1')], args: [J] });
    expect(shape(t.dedupRelease({ queue: 'orders', dedupId: 'd1' })).args).toEqual(['']);
    expect(t.dedupRelease({ queue: 'orders', dedupId: 'd1' }).parse(1)).toBe(true);
    expect(t.dedupRelease({ queue: 'orders', dedupId: 'd1' }).parse(0)).toBe(false);
    const reprioritized = shape(t.changePriority({ queue: 'orders', id: J, priority: -16, lifo: true }));
    expect(reprioritized).toEqual({ script: 'change_priority', keys: [q(`job:${J}`), q('pending'), q('meta')], args: [J, '-16', '1'] });
    expect(shape(t.changePriority({ queue: 'orders', id: J, priority: 0, payload: 'p' })).args).toEqual([J, '0', '', 'p']);
    expect(() => t.changePriority({ queue: 'orders', id: J, priority: 1.5 })).toThrow(InvalidArgumentError);
    expect(shape(t.updateProgress({ queue: 'orders', id: J, progress: '5' })).keys).toEqual([q(`job:${J}`), q('events'), q('meta'), q('journal')]);
    expect(shape(t.updateProgress({ queue: 'orders', id: J, progress: '5' })).args).toEqual([J, '5']);
    expect(shape(t.updateProgress({ queue: 'orders', id: J, progress: '5', kind: 'string' })).args).toEqual([J, '5', 'string']);
    const ob = shape(t.obliterate({ queue: 'orders', budget: 10, repeatNames: ['r1'] }));
    expect(ob.keys.at(-1)).toBe(q('repeat:r1'));
    expect(ob.keys).toHaveLength(31);
    expect(ob.keys[20]).toBe(q('waiting-children'));
    expect(ob.keys.slice(21, 24)).toEqual([q('workers'), q('workers:info'), q('grate')]);
    expect(ob.keys.slice(24, 30)).toEqual([q('completed'), q('dead:at'), q('de:'), q('journal'), q('outcomes'), q('expired')]);
    expect(ob.args).toEqual(['', 10, 'r1']);
  });
  it('lanes', () => {
    expect(shape(t.laneLimit({ queue: 'orders', group: G, limit: 2 }))).toEqual({
      script: 'glimit',
      keys: [q('glimit'), q('gactive'), q('ring'), q('paused'), q('wake'), q(`g:${G}:pending`)],
      args: [G, 2],
    });
    expect(shape(t.laneReassign({ queue: 'orders', id: J, to: G })).keys.slice(0, 2)).toEqual([q(`job:${J}`), q(`g:${G}:pending`)]);
    expect(t.laneReassign({ queue: 'orders', id: J, to: G }).parse(-1)).toBe('not_found');
    expect(shape(t.laneReassign({ queue: 'orders', id: J, to: G, toName: 'tenantA' })).args).toEqual([J, G, 'tenantA']);
  });
  it('reads', () => {
    expect(shape(t.counts({ queue: 'orders', names: ['dead', 'completed'] }))).toEqual({ script: 'counts', keys: [q('g:'), q('dead'), q('metrics:completed')], args: ['z', 'm'] });
    expect(shape(t.counts({ queue: 'orders', names: ['lanes', 'dead'] }))).toEqual({
      script: 'counts',
      keys: [q('g:'), q('ring'), q('paused'), q('glimit'), q('gactive'), q('gweight'), q('dead')],
      args: ['g', '-', '-', '-', '-', 'z'],
    });
    expect(t.counts({ queue: 'orders', names: ['lanes', 'dead'] }).parse([3, 1])).toEqual({ lanes: 3, dead: 1 });
    expect(t.counts({ queue: 'orders', names: ['dead', 'completed'] }).parse([1, 2])).toEqual({ dead: 1, completed: 2 });
    expect(() => t.counts({ queue: 'orders', names: ['toString' as 'dead'] })).toThrow(UnknownStateError);
    expect(shape(t.counts({ queue: 'orders', names: ['awaiting_children'] }))).toEqual({ script: 'counts', keys: [q('g:'), q('waiting-children')], args: ['s'] });
    expect(shape(t.stateLookup({ queue: 'orders', id: J })).keys).toEqual([q('pending'), q('active'), q('schedule'), q('dead'), q(`job:${J}`), q('g:')]);
  });
  it('repeat and flows', () => {
    expect(shape(t.repeatRegister({ queue: 'orders', name: 'r', everyMs: 5, template: 'p', firstInMs: 0 }))).toEqual({
      script: 'repeat_register',
      keys: [q('repeat'), q('repeat:r')],
      args: ['r', 5, 'p', 0],
    });
    expect(shape(t.enqueueFlow({ queue: 'orders', parent: { id: P, payload: 'pp' }, children: [{ id: J, payload: 'c', policy: 'fp' }] }))).toEqual({
      script: 'enqueue_flow',
      keys: [q(`job:${P}`), q(`job:${P}:dependencies`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal'), q('wake'), q(`job:${J}`)],
      args: [P, 'pp', '1', J, 'c', 'fp'],
    });
    expect(shape(t.enqueueFlowChild({ queue: 'billing', id: J, payload: 'c', parent: { id: P, queue: 'orders', policy: 'fp' } }))).toEqual({
      script: 'enqueue_flow_child',
      keys: ['emq:{billing}:job:' + J, 'emq:{billing}:pending', 'emq:{billing}:schedule', 'emq:{billing}:meta', 'emq:{billing}:wake'],
      args: [J, 'c', P, 'orders', 'fp', 0],
    });
    expect(shape(t.flowFailDeliver({ parentQueue: 'orders', parentId: P, childId: J, error: 'e', policy: 'fp' })).keys).toEqual([
      q(`job:${P}:dependencies`),
      q(`job:${P}:failed`),
      q(`job:${P}:unsuccessful`),
      q(`job:${P}`),
      q('pending'),
      q('dead'),
      q('waiting-children'),
      q('events'),
      q('meta'),
      q('journal'),
      q('job:'),
      q('dead:at'),
      q('de:'),
      q('wake'),
    ]);
  });
  it('flow outbox trim', () => {
    expect(shape(t.flowOutboxTrim({ queue: 'orders', delivered: 3 }))).toEqual({ script: 'flow_outbox_trim', keys: [q('flow:outbox')], args: [3] });
  });
  it('flow re-emit', () => {
    expect(shape(t.flowReemit({ queue: 'orders', id: J, error: 'e' }))).toEqual({ script: 'flow_reemit', keys: [q(`job:${J}`), q('flow:outbox')], args: [J, 'orders', 'e'] });
  });
});

describe('the rest of the catalog', () => {
  it('one-key and no-argument transitions', () => {
    expect(shape(t.updateData({ queue: 'orders', id: J, payload: 'p' }))).toEqual({ script: 'update_data', keys: [q(`job:${J}`)], args: ['p'] });
    expect(shape(t.pauseQueue({ queue: 'orders' }))).toEqual({ script: 'queue_pause', keys: [q('meta')], args: [] });
    expect(shape(t.resumeQueue({ queue: 'orders' }))).toEqual({ script: 'queue_resume', keys: [q('meta')], args: [] });
    expect(shape(t.isMaxed({ queue: 'orders' }))).toEqual({ script: 'is_maxed', keys: [q('meta'), q('active')], args: [] });
    expect(shape(t.rateTtl({ queue: 'orders', max: 3 }))).toEqual({ script: 'rate_ttl', keys: [q('limiter'), q('meta')], args: [3] });
    const gates = [q('meta'), q('limiter')];
    expect(shape(t.setGates({ queue: 'orders', concurrency: 4, limiter: { max: 10, durationMs: 1000 } }))).toEqual({ script: 'gate_set', keys: gates, args: ['4', '10', '1000'] });
    expect(shape(t.setGates({ queue: 'orders', concurrency: null })).args).toEqual(['0', '', '']);
    expect(shape(t.setGates({ queue: 'orders', limiter: null })).args).toEqual(['', '0', '']);
    expect(() => t.setGates({ queue: 'orders', concurrency: 0 })).toThrow(InvalidArgumentError);
    expect(() => t.setGates({ queue: 'orders', limiter: { max: 1, durationMs: 0 } })).toThrow(InvalidArgumentError);
    const events = [q('meta'), q('journal')];
    expect(shape(t.setEvents({ queue: 'orders', chatty: true, journal: 1000 }))).toEqual({ script: 'events_set', keys: events, args: ['1', '1000'] });
    expect(shape(t.setEvents({ queue: 'orders', chatty: false })).args).toEqual(['0', '']);
    expect(shape(t.setEvents({ queue: 'orders', journal: null })).args).toEqual(['', '0']);
    expect(() => t.setEvents({ queue: 'orders', journal: 0 })).toThrow(InvalidArgumentError);
    expect(shape(t.rateLimit({ queue: 'orders', ms: 500 }))).toEqual({ script: 'rate_limit', keys: gates, args: [500] });
    expect(shape(t.rateReset({ queue: 'orders' }))).toEqual({ script: 'rate_reset', keys: [q('limiter')], args: [] });
    expect(t.rateReset({ queue: 'orders' }).parse(1)).toBe(true);
    expect(t.rateLimit({ queue: 'orders', ms: 500 }).parse(0)).toBe(false);
    expect(() => t.rateLimit({ queue: 'orders', ms: 0 })).toThrow(InvalidArgumentError);
    expect(shape(t.laneCounts({ queue: 'orders', groups: [G] }))).toEqual({ script: 'lane_counts', keys: [q('g:')], args: [G] });
  });
  it('lane controls', () => {
    expect(shape(t.lanePause({ queue: 'orders', group: G }))).toEqual({ script: 'gpause', keys: [q('paused'), q('ring')], args: [G] });
    expect(shape(t.laneResume({ queue: 'orders', group: G }))).toEqual({
      script: 'gresume',
      keys: [q('paused'), q('ring'), q('glimit'), q('gactive'), q('wake'), q(`g:${G}:pending`)],
      args: [G],
    });
    expect(shape(t.laneWeight({ queue: 'orders', group: G, weight: 3 }))).toEqual({ script: 'gweight', keys: [q('gweight')], args: [G, 3] });
    expect(shape(t.laneDrain({ queue: 'orders', group: G }))).toEqual({ script: 'gdrain', keys: [q(`g:${G}:pending`), q('ring'), q('job:'), q('waiting-children')], args: [G] });
    expect(shape(t.laneRateLimit({ queue: 'orders', group: G, limit: { max: 5, durationMs: 1000 } }))).toEqual({ script: 'grate', keys: [q('grate'), q('ring'), q('wake')], args: [G, '5', '1000'] });
    expect(shape(t.laneRateLimit({ queue: 'orders', group: G, limit: null })).args).toEqual([G, '0', '']);
    expect(() => t.laneRateLimit({ queue: 'orders', group: G, limit: { max: 0, durationMs: 1 } })).toThrow(InvalidArgumentError);
    expect(() => t.laneRateLimit({ queue: 'orders', group: 'nope', limit: null })).toThrow(MalformedIdError);
  });
  it('worker registry', () => {
    const reg = [q('workers'), q('workers:info')];
    expect(shape(t.workerBeat({ queue: 'orders', id: 'w1', ttlMs: 300, info: '{}' }))).toEqual({ script: 'worker_beat', keys: reg, args: ['w1', 300, '{}'] });
    expect(shape(t.workerLeave({ queue: 'orders', id: 'w1' }))).toEqual({ script: 'worker_leave', keys: reg, args: ['w1'] });
    expect(shape(t.workerList({ queue: 'orders', limit: 10 }))).toEqual({ script: 'worker_list', keys: reg, args: [10] });
    expect(t.workerList({ queue: 'orders', limit: 10 }).parse([5, 'w1', 9, '{}', 'w2', 8, false])).toEqual({
      now: 5,
      workers: [
        { id: 'w1', lapsesAt: 9, info: '{}' },
        { id: 'w2', lapsesAt: 8, info: undefined },
      ],
    });
    expect(t.workerList({ queue: 'orders', limit: 1 }).parse([5])).toEqual({ now: 5, workers: [] });
    expect(() => t.workerBeat({ queue: 'orders', id: '', ttlMs: 1, info: '' })).toThrow(InvalidArgumentError);
    expect(() => t.workerBeat({ queue: 'orders', id: 'w', ttlMs: 0, info: '' })).toThrow(InvalidArgumentError);
  });
  it('job schedulers', () => {
    expect(shape(t.schedulerUpsert({ queue: 'orders', name: 'r', cadence: { cron: '0 * * * *', tz: 'Europe/Paris' }, template: 'p', first: { at: 9 }, limit: 3 }))).toEqual({
      script: 'scheduler_upsert',
      keys: [q('repeat'), q('repeat:r')],
      args: ['r', '', '0 * * * *', 'Europe/Paris', 'p', 'at', 9, '', '', 3],
    });
    expect(shape(t.schedulerUpsert({ queue: 'orders', name: 'r', cadence: { everyMs: 50 }, template: 'p', first: { inMs: 0 }, startAt: 1, endAt: 2 })).args).toEqual([
      'r', 50, '', '', 'p', 'in', 0, 1, 2, '',
    ]);
    expect(shape(t.schedulerDue({ queue: 'orders', limit: 10 }))).toEqual({ script: 'scheduler_due', keys: [q('repeat')], args: [10] });
    expect(t.schedulerDue({ queue: 'orders', limit: 10 }).parse(['a', '5', 'b', '6'])).toEqual([{ name: 'a', due: 5 }, { name: 'b', due: 6 }]);
    expect(t.schedulerDue({ queue: 'orders', limit: 10 }).parse([['a', 5]])).toEqual([{ name: 'a', due: 5 }]);
    expect(shape(t.schedulerFire({ queue: 'orders', name: 'r', due: 5, id: J, nextAt: 7 }))).toEqual({
      script: 'scheduler_fire',
      keys: [q('repeat'), q('repeat:r'), q(`job:${J}`), q('pending'), q('wake')],
      args: ['r', '5', J, 7],
    });
  });
  it('repeat bookkeeping and flow holds', () => {
    expect(shape(t.repeatCancel({ queue: 'orders', name: 'r' }))).toEqual({ script: 'repeat_cancel', keys: [q('repeat'), q('repeat:r')], args: ['r'] });
    expect(shape(t.repeatAdvance({ queue: 'orders', name: 'r', everyMs: '5' }))).toEqual({ script: 'repeat_advance', keys: [q('repeat'), q('repeat:r')], args: ['r', 5] });
    expect(shape(t.repeatDue({ queue: 'orders', limit: 4 }))).toEqual({ script: 'repeat_due', keys: [q('repeat')], args: [4] });
    expect(shape(t.holdParent({ queue: 'orders', id: P, payload: 'p', children: 2, link: { id: J, queue: 'billing', policy: 'id' } }))).toEqual({
      script: 'hold_parent',
      keys: [q(`job:${P}`), q(`job:${P}:dependencies`), q('waiting-children')],
      args: [P, 'p', 2, J, 'billing', 'id'],
    });
    // [TS] A node's business key: its dedup key trails the keys, its release fields the option pairs.
    expect(shape(t.holdParent({ queue: 'orders', id: P, payload: 'p', children: 1, key: { key: 'order-42', keepMs: 1000 } }))).toEqual({
      script: 'hold_parent',
      keys: [q(`job:${P}`), q(`job:${P}:dependencies`), q('waiting-children'), q('de:order-42')],
      args: [P, 'p', 1, '', '', '', 'dedup', 'order-42', 'dedup_keep', '1000'],
    });
    expect(shape(t.enqueueFlowChild({ queue: 'orders', id: J, payload: 'c', parent: { id: P, queue: '', policy: 'fp' }, key: { key: 'pick-42', keepMs: 5 } })).keys.at(-1)).toBe(q('de:pick-42'));
    expect(() => t.holdParent({ queue: 'orders', id: P, payload: 'p', children: 1, key: { key: 'a b', keepMs: 1 } })).toThrow();
    expect(shape(t.flowDeliver({ parentQueue: 'orders', parentId: P, childId: J, result: 'r' }))).toEqual({
      script: 'flow_deliver',
      keys: [q(`job:${P}:dependencies`), q(`job:${P}:processed`), q(`job:${P}`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal'), q('wake')],
      args: [J, 'r', P],
    });
    expect(shape(t.flowRejoin({ parentQueue: 'orders', parentId: P, childId: J }))).toEqual({
      script: 'flow_rejoin',
      keys: [q(`job:${P}:dependencies`), q(`job:${P}:processed`), q(`job:${P}:failed`), q(`job:${P}:unsuccessful`), q(`job:${P}`)],
      args: [J, P],
    });
  });
});

describe('flow adoption and detachment [TS]', () => {
  it('adopt_children: the parent first, then its local leaves; a take-back carries a negative remote', () => {
    expect(shape(t.adoptChildren({ queue: 'orders', parent: J, local: [{ id: P, payload: 'c', policy: 'cp' }], remote: 1 }))).toEqual({
      script: 'adopt_children',
      keys: [q(`job:${J}`), q(`job:${J}:dependencies`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal'), q(`job:${P}`)],
      args: [J, '1', P, 'c', 'cp'],
    });
    expect(shape(t.adoptChildren({ queue: 'orders', parent: J, local: [], remote: -2 })).args).toEqual([J, '-2']);
    expect(t.adoptChildren({ queue: 'orders', parent: J, local: [], remote: 0 }).parse(2)).toEqual({ open: 2 });
    expect(t.adoptChildren({ queue: 'orders', parent: J, local: [], remote: 0 }).parse(-1)).toBe('duplicate');
    expect(() => t.adoptChildren({ queue: 'orders', parent: J, local: [], remote: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => t.adoptChildren({ queue: 'orders', parent: 'nope', local: [], remote: 1 })).toThrow(MalformedIdError);
  });
  it('link_child [TS]: the existing child row, then its parent on the same slot', () => {
    expect(shape(t.linkChild({ queue: 'orders', child: P, parent: J, policy: 'id' }))).toEqual({
      script: 'link_child',
      keys: [q(`job:${P}`), q(`job:${J}`), q(`job:${J}:dependencies`), q(`job:${J}:processed`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal'), q('wake')],
      args: [P, J, 'id'],
    });
    expect(t.linkChild({ queue: 'orders', child: P, parent: J, policy: 'fp' }).parse(2)).toBe('settled');
    expect(t.linkChild({ queue: 'orders', child: P, parent: J, policy: 'fp' }).parse(0)).toBe('refused');
  });

  it('detach_child: the child row, then its parent on the same slot', () => {
    expect(shape(t.detachChild({ queue: 'orders', child: P, parent: J }))).toEqual({
      script: 'detach_child',
      keys: [q(`job:${P}`), q(`job:${J}`), q(`job:${J}:dependencies`), q('pending'), q('waiting-children'), q('events'), q('meta'), q('journal')],
      args: [P, J],
    });
    expect(t.detachChild({ queue: 'orders', child: P, parent: J }).parse(1)).toBe(true);
    expect(t.detachChild({ queue: 'orders', child: P, parent: J }).parse(0)).toBe(false);
  });
});
