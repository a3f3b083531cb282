import { checkEntry, checkJob, checkKey, isTerminal, TERMINAL_STATES, type CheckResult, type Violation } from './checker.js';
import type { Operation, Recorded } from './operations.js';

/** Options for {@link RollingChecker}. */
export interface RollingCheckOptions {
  /** As `CheckOptions.coherenceMs`: default 1000 ms. */
  readonly coherenceMs?: number;
  /** The bus consumer groups that must each acknowledge (or dead-letter) every appended entry. */
  readonly groups?: readonly string[];
  /**
   * How long after a job's end and after its last lease bound its operations may still arrive (a
   * worker process's IPC, an event fired late); a job is judged only then. Default 10 000 ms.
   */
  readonly graceMs?: number;
  /**
   * How long a judged job's operations are kept, so that a late one (a second end, a start on a
   * stale claim) is still judged with them; also how long cache writes are kept one by one before
   * the older ones fold into the newest of them. Default 120 000 ms.
   */
  readonly retainMs?: number;
}

/** What a {@link RollingChecker} holds and has found so far. */
export interface RollingSnapshot {
  /** Operations recorded. */
  readonly operations: number;
  /** Operations still held (not yet judged, or kept for late arrivals). Stays flat in a steady run. */
  readonly retained: number;
  readonly judged: CheckResult['judged'];
  readonly violations: number;
}

interface LiveJob {
  readonly ops: Recorded[];
  enqueued: boolean;
  /** When the record first shows the job ended (accepted terminal settlement, removal, terminal final state). */
  endedAt: number | undefined;
  /** The latest lease deadline of its starts: no start may overlap another before it. */
  leaseBound: number;
}

interface JudgedJob {
  readonly ops: Recorded[];
  /** Violations already reported for it, so a late operation adds only new ones. */
  readonly found: Set<string>;
  readonly at: number;
}

interface KeyState {
  /** Writes by acknowledgement time; the first may stand for every older one (the newest of them). */
  writes: Recorded[];
  reads: Recorded[];
}

interface EntryState {
  readonly ops: Recorded[];
  appendedAt: number | undefined;
  readonly done: Set<string>;
  lastAt: number;
}

const key = (v: Violation): string => `${v.rule}\n${v.message}`;

/**
 * The history checker for long runs: the same promises as `checkHistory`, judged as the run
 * goes so that memory stays flat. A job is judged once it has ended and its last lease bound has
 * passed (plus a grace for late operations), then its operations are dropped after a retention
 * window; a cache read is judged as soon as it is recorded and old writes fold into the newest of
 * them; a bus entry is judged and dropped once every group acknowledged it. Counters keep what was
 * judged. {@link finish} judges what is left, with the rules `checkHistory` applies at a run's end.
 */
export class RollingChecker {
  readonly #coherenceMs: number;
  readonly #groups: readonly string[];
  readonly #graceMs: number;
  readonly #retainMs: number;
  readonly #jobs = new Map<string, LiveJob>();
  /** Judged jobs in the order they were judged, so the expired ones are at the front. */
  readonly #judged = new Map<string, JudgedJob>();
  readonly #keys = new Map<string, KeyState>();
  readonly #entries = new Map<string, EntryState>();
  readonly #violations: Violation[] = [];
  readonly #counts = { jobs: 0, reads: 0, entries: 0 };
  #seq = 0;

  constructor(options: RollingCheckOptions = {}) {
    this.#coherenceMs = options.coherenceMs ?? 1_000;
    this.#groups = options.groups ?? [];
    this.#graceMs = options.graceMs ?? 10_000;
    this.#retainMs = options.retainMs ?? 120_000;
  }

  /** Takes one operation (cheap: a map lookup and a push). */
  record(op: Operation): void {
    const rec = { ...op, seq: this.#seq++ } as Recorded;
    if ('job' in rec) this.#recordJob(rec);
    else if (rec.type === 'cache-write' || rec.type === 'cache-read') this.#recordCache(rec);
    else this.#recordEntry(rec);
  }

  /** Judges what is ripe at `now` and drops what no later operation can change. */
  sweep(now = Date.now()): void {
    for (const [job, live] of this.#jobs) {
      if (live.endedAt === undefined || now < Math.max(live.endedAt, live.leaseBound) + this.#graceMs) continue;
      this.#jobs.delete(job);
      const found = new Set<string>();
      // As checkHistory: a job whose enqueue was never acknowledged is not judged.
      if (live.enqueued) {
        this.#counts.jobs++;
        for (const v of checkJob(job, live.ops)) {
          found.add(key(v));
          this.#violations.push(v);
        }
      }
      this.#judged.set(job, { ops: live.ops, found, at: now });
    }
    for (const [job, judged] of this.#judged) {
      if (judged.at + this.#retainMs > now) break;
      this.#judged.delete(job);
    }
    for (const [k, state] of this.#keys) {
      if (state.reads.length > 0) {
        // Every write a read is judged against was acknowledged before the read was sent, so it is
        // recorded by the time the read is.
        const checked = checkKey(k, [...state.writes, ...state.reads], this.#coherenceMs);
        this.#counts.reads += checked.reads;
        this.#violations.push(...checked.violations);
        state.reads = [];
      }
      this.#foldWrites(state, now - this.#retainMs);
    }
    for (const [entry, state] of this.#entries) {
      if (state.appendedAt !== undefined && this.#groups.every((g) => state.done.has(g))) {
        this.#counts.entries++;
        this.#entries.delete(entry);
      } else if (state.appendedAt === undefined && state.lastAt + this.#retainMs <= now) {
        // Acknowledged but never recorded as appended (its append's reply was lost, or a redelivery
        // after it was judged): not judged, as in checkHistory.
        this.#entries.delete(entry);
      }
    }
  }

  /** Appended entries not yet acknowledged by every group. */
  get unackedEntries(): number {
    let left = 0;
    for (const state of this.#entries.values()) if (state.appendedAt !== undefined && !this.#groups.every((g) => state.done.has(g))) left++;
    return left;
  }

  /** Counters and the operations still held. */
  snapshot(): RollingSnapshot {
    let retained = 0;
    for (const live of this.#jobs.values()) retained += live.ops.length;
    for (const judged of this.#judged.values()) retained += judged.ops.length;
    for (const state of this.#keys.values()) retained += state.writes.length + state.reads.length;
    for (const state of this.#entries.values()) retained += state.ops.length;
    return { operations: this.#seq, retained, judged: { ...this.#counts }, violations: this.#violations.length };
  }

  /**
   * Judges everything still held, like `checkHistory` over a whole run: jobs and entries
   * acknowledged before `settledBefore` (default: all) that never ended are lost, whatever their lease.
   */
  finish(settledBefore = Infinity): CheckResult {
    this.sweep();
    for (const [job, live] of this.#jobs) {
      const enqueue = live.ops.find((op) => op.type === 'enqueue');
      if (enqueue === undefined || enqueue.at >= settledBefore) continue;
      this.#counts.jobs++;
      this.#violations.push(...checkJob(job, live.ops));
    }
    this.#jobs.clear();
    for (const [entry, state] of this.#entries) {
      if (state.appendedAt === undefined || state.appendedAt >= settledBefore) continue;
      this.#counts.entries++;
      this.#violations.push(...checkEntry(entry, state.ops, this.#groups));
    }
    this.#entries.clear();
    return { operations: this.#seq, judged: { ...this.#counts }, violations: [...this.#violations] };
  }

  #recordJob(op: Extract<Recorded, { job: string }>): void {
    const judged = this.#judged.get(op.job);
    if (judged) {
      // Late: judge the job again with it, and report only what it newly shows.
      judged.ops.push(op);
      for (const v of checkJob(op.job, judged.ops)) {
        if (judged.found.has(key(v))) continue;
        judged.found.add(key(v));
        this.#violations.push(v);
      }
      return;
    }
    let live = this.#jobs.get(op.job);
    if (!live) {
      live = { ops: [], enqueued: false, endedAt: undefined, leaseBound: 0 };
      this.#jobs.set(op.job, live);
    }
    live.ops.push(op);
    if (op.type === 'enqueue') live.enqueued = true;
    else if (op.type === 'start') live.leaseBound = Math.max(live.leaseBound, op.leaseUntil ?? op.at + op.leaseMs);
    if (isTerminal(op) || (op.type === 'final' && TERMINAL_STATES.has(op.state))) live.endedAt ??= op.at;
  }

  #recordCache(op: Extract<Recorded, { type: 'cache-write' | 'cache-read' }>): void {
    let state = this.#keys.get(op.key);
    if (!state) {
      state = { writes: [], reads: [] };
      this.#keys.set(op.key, state);
    }
    if (op.type === 'cache-read') {
      state.reads.push(op);
      return;
    }
    // Writes arrive nearly in acknowledgement order: insert from the back.
    let i = state.writes.length;
    while (i > 0 && (state.writes[i - 1] as Extract<Recorded, { type: 'cache-write' }>).ackAt > op.ackAt) i--;
    state.writes.splice(i, 0, op);
  }

  /**
   * Folds the writes acknowledged before `cutoff` into the newest of them: a read sent after
   * `cutoff + coherenceMs` is judged against the same last write either way (values only grow).
   */
  #foldWrites(state: KeyState, cutoff: number): void {
    const writes = state.writes as Extract<Recorded, { type: 'cache-write' }>[];
    let old = 0;
    while (old < writes.length && (writes[old] as Extract<Recorded, { type: 'cache-write' }>).ackAt < cutoff) old++;
    if (old < 2) return;
    let newest = writes[0] as Extract<Recorded, { type: 'cache-write' }>;
    for (const w of writes.slice(1, old)) if (w.value > newest.value) newest = w;
    state.writes = [newest, ...writes.slice(old)];
  }

  #recordEntry(op: Extract<Recorded, { type: 'bus-append' | 'bus-ack' | 'bus-dead' }>): void {
    let state = this.#entries.get(op.entry);
    if (!state) {
      state = { ops: [], appendedAt: undefined, done: new Set(), lastAt: op.at };
      this.#entries.set(op.entry, state);
    }
    state.ops.push(op);
    state.lastAt = Math.max(state.lastAt, op.at);
    if (op.type === 'bus-append') state.appendedAt = op.at;
    else state.done.add(op.group);
  }
}
