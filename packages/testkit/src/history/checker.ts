import type { Operation, Recorded } from './operations.js';

/** The promise a {@link Violation} breaks. */
export type Rule =
  /** An acknowledged job never ended (not completed, dead or removed). */
  | 'job-lost'
  /** A job ended more than once (two accepted terminal settlements, or one and a removal). */
  | 'job-ended-twice'
  /** The server ended a job (its final state) but no settlement was reported accepted. */
  | 'end-unreported'
  /** A settlement was accepted under a token that another claim had already superseded. */
  | 'stale-token-accepted'
  /** A handler started on a job while another start of it still held a live lease. */
  | 'overlapping-starts'
  /** A cache read returned a value older than the last write acknowledged a coherence bound earlier. */
  | 'stale-read'
  /** An appended bus entry is neither acknowledged by a group nor in that group's dead letters. */
  | 'bus-unacked';

/** One broken promise, with the smallest history that shows it. */
export interface Violation {
  readonly rule: Rule;
  /** The job, cache key or bus entry (with its group) the violation is about. */
  readonly subject: string;
  readonly message: string;
  /** Only the operations that show it, in history order. */
  readonly operations: readonly Recorded[];
}

/** Options for {@link checkHistory}. */
export interface CheckOptions {
  /**
   * How long after a cache write's acknowledgement every reader must see it (or something newer).
   * Reads sent earlier than that are not judged. Default 1000 ms.
   */
  readonly coherenceMs?: number;
  /** The bus consumer groups that must each acknowledge (or dead-letter) every appended entry. */
  readonly groups?: readonly string[];
  /**
   * Judge only jobs and entries acknowledged before this time (the rest may still be in flight when
   * the run stops). Default: every one.
   */
  readonly settledBefore?: number;
}

/** What {@link checkHistory} found. */
export interface CheckResult {
  /** Operations read. */
  readonly operations: number;
  /** Acknowledged jobs, cache reads and bus entries judged. */
  readonly judged: { readonly jobs: number; readonly reads: number; readonly entries: number };
  readonly violations: readonly Violation[];
}

/** Server states that end a job. */
export const TERMINAL_STATES: ReadonlySet<string> = new Set(['completed', 'dead', 'failed']);

type Of<T extends Operation['type']> = Extract<Recorded, { type: T }>;

function groupBy<T extends Recorded>(ops: readonly T[], key: (op: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const op of ops) {
    const k = key(op);
    const list = map.get(k);
    if (list) list.push(op);
    else map.set(k, [op]);
  }
  return map;
}

/** `ops` without repeats, in history order. */
export function bySeq(ops: readonly Recorded[]): Recorded[] {
  return [...new Set(ops)].sort((a, b) => a.seq - b.seq);
}

/** Whether `op` ends its job on the record: an accepted terminal settlement or a removal. */
export function isTerminal(op: Recorded): boolean {
  return (op.type === 'settle' && op.accepted && op.outcome !== 'retry') || op.type === 'removed';
}

/** When a start's lease can end at the earliest: the recorded bound, else `leaseMs` after the start. */
function leaseEnd(start: Of<'start'>): number {
  return start.leaseUntil ?? start.at + start.leaseMs;
}

/** The queue's promises, judged per job over that job's operations only. */
export function checkJob(job: string, ops: readonly Recorded[]): Violation[] {
  const out: Violation[] = [];
  const ends = ops.filter(isTerminal);
  const finals = ops.filter((op): op is Of<'final'> => op.type === 'final');
  const endedOnServer = finals.some((f) => TERMINAL_STATES.has(f.state));
  if (ends.length > 1) {
    out.push({ rule: 'job-ended-twice', subject: job, message: `job ${job} ended ${ends.length} times`, operations: bySeq([...ops.filter((o) => o.type === 'enqueue'), ...ends]) });
  } else if (ends.length === 0 && endedOnServer) {
    out.push({ rule: 'end-unreported', subject: job, message: `job ${job} ended on the server but no accepted settlement was reported`, operations: bySeq(ops) });
  } else if (ends.length === 0) {
    out.push({ rule: 'job-lost', subject: job, message: `job ${job} was acknowledged and never ended`, operations: bySeq(ops) });
  }
  const starts = ops.filter((op): op is Of<'start'> => op.type === 'start');
  const settles = ops.filter((op): op is Of<'settle'> => op.type === 'settle');
  const handlerEnds = ops.filter((op): op is Of<'handler-end'> => op.type === 'handler-end');
  // A start that supersedes token T happened after the server re-leased the job, so after any
  // acceptance of T; a T settlement accepted although its handler finished after that start is stale.
  for (const settle of settles) {
    if (!settle.accepted) continue;
    const own = starts.find((s) => s.token === settle.token);
    const later = starts.find((s) => s.token !== settle.token && s.at < settle.sentAt && (own === undefined || s.at > own.at));
    if (later) {
      out.push({
        rule: 'stale-token-accepted',
        subject: job,
        message: `job ${job}: a settlement under token ${settle.token} was accepted after token ${later.token} started`,
        operations: bySeq([...(own ? [own] : []), later, settle]),
      });
    }
  }
  const ordered = [...starts].sort((a, b) => a.at - b.at);
  for (let i = 0; i < ordered.length; i++) {
    const first = ordered[i] as Of<'start'>;
    // The lease runs from the claim, not from the handler's start: with the bound the worker knew,
    // a start before it is an overlap the server cannot have allowed.
    const until = leaseEnd(first);
    for (let j = i + 1; j < ordered.length; j++) {
      const next = ordered[j] as Of<'start'>;
      if (next.at >= until) break;
      if (next.token === first.token) continue;
      // The first handler had finished: by its settlement's record, or by its own end's when the
      // worker process died before reporting the settlement (the server took it: a retry's claim).
      const finished = settles.some((s) => s.token === first.token && s.sentAt <= next.at) || handlerEnds.some((h) => h.token === first.token && h.at <= next.at);
      if (finished) continue;
      out.push({
        rule: 'overlapping-starts',
        subject: job,
        message: `job ${job}: token ${next.token} started ${next.at - first.at} ms after token ${first.token}, ${until - next.at} ms before its lease could end`,
        operations: bySeq([first, next]),
      });
    }
  }
  return out;
}

/** Cache: no read returns a value older than the last write acknowledged `coherenceMs` before it. */
export function checkKey(key: string, ops: readonly Recorded[], coherenceMs: number): { violations: Violation[]; reads: number } {
  const writes = ops.filter((op): op is Of<'cache-write'> => op.type === 'cache-write').sort((a, b) => a.ackAt - b.ackAt);
  const reads = ops.filter((op): op is Of<'cache-read'> => op.type === 'cache-read');
  const out: Violation[] = [];
  let judged = 0;
  for (const read of reads) {
    let last: Of<'cache-write'> | undefined;
    for (const w of writes) {
      if (w.ackAt + coherenceMs > read.at) break;
      if (last === undefined || w.value > last.value) last = w;
    }
    if (last === undefined) continue;
    judged++;
    if (read.value === null || read.value >= last.value) continue;
    const seen = writes.find((w) => w.value === read.value);
    out.push({
      rule: 'stale-read',
      subject: key,
      message: `key ${key}: read ${read.value} at ${read.at}, but ${last.value} was acknowledged at ${last.ackAt} (${read.at - last.ackAt} ms earlier)`,
      operations: bySeq([...(seen ? [seen] : []), last, read]),
    });
  }
  return { violations: out, reads: judged };
}

/** Bus: every appended entry is acknowledged by every group, or sits in that group's dead letters. */
export function checkEntry(entry: string, ops: readonly Recorded[], groups: readonly string[]): Violation[] {
  const out: Violation[] = [];
  for (const group of groups) {
    const done = ops.some((op) => (op.type === 'bus-ack' || op.type === 'bus-dead') && op.group === group);
    if (done) continue;
    out.push({
      rule: 'bus-unacked',
      subject: `${entry} (group ${group})`,
      message: `entry ${entry}: neither acknowledged by group ${group} nor in its dead letters`,
      operations: bySeq(ops.filter((op) => op.type === 'bus-append' || ((op.type === 'bus-ack' || op.type === 'bus-dead') && op.group === group))),
    });
  }
  return out;
}

/**
 * Verifies the promises of the queue, the cache and the bus over a whole history:
 * - every acknowledged job ends exactly once (completed, dead or removed), and when the server ended
 *   it, an accepted settlement was reported;
 * - no settlement is accepted from a stale token;
 * - a handler start never overlaps another start of the same job within that start's lease;
 * - no cache read returns a value older than the last write acknowledged `coherenceMs` before it;
 * - every appended bus entry is acknowledged by every group in `groups` or sits in its dead letters.
 *
 * Each violation carries only the operations of its job, key or entry that show it.
 */
export function checkHistory(operations: readonly Recorded[], options: CheckOptions = {}): CheckResult {
  const coherenceMs = options.coherenceMs ?? 1_000;
  const before = options.settledBefore ?? Infinity;
  const violations: Violation[] = [];
  const jobOps = groupBy(
    operations.filter((op): op is Of<'enqueue' | 'start' | 'handler-end' | 'settle' | 'removed' | 'final'> => 'job' in op),
    (op) => op.job,
  );
  let jobs = 0;
  for (const [job, ops] of jobOps) {
    const enqueued = ops.find((op) => op.type === 'enqueue');
    if (enqueued === undefined || enqueued.at >= before) continue;
    jobs++;
    violations.push(...checkJob(job, ops));
  }
  const keyOps = groupBy(
    operations.filter((op): op is Of<'cache-write' | 'cache-read'> => op.type === 'cache-write' || op.type === 'cache-read'),
    (op) => op.key,
  );
  let reads = 0;
  for (const [key, ops] of keyOps) {
    const checked = checkKey(key, ops, coherenceMs);
    reads += checked.reads;
    violations.push(...checked.violations);
  }
  const entryOps = groupBy(
    operations.filter((op): op is Of<'bus-append' | 'bus-ack' | 'bus-dead'> => op.type.startsWith('bus-')),
    (op) => op.entry,
  );
  let entries = 0;
  for (const [entry, ops] of entryOps) {
    const appended = ops.find((op) => op.type === 'bus-append');
    if (appended === undefined || appended.at >= before) continue;
    entries++;
    violations.push(...checkEntry(entry, ops, options.groups ?? []));
  }
  return { operations: operations.length, judged: { jobs, reads, entries }, violations };
}

/** One operation as a line: `#seq +ms type subject details`. */
export function formatOperation(op: Recorded, origin = 0): string {
  const { seq, at, type, ...rest } = op;
  const details = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'number' && k.endsWith('At') ? `+${v - origin}` : String(v)}`)
    .join(' ');
  return `#${seq} +${at - origin}ms ${type} ${details}`;
}

/** A violation and its smallest history, ready to print; times relative to its first operation. */
export function formatViolation(violation: Violation): string {
  const origin = violation.operations[0]?.at ?? 0;
  return [`${violation.rule}: ${violation.message}`, ...violation.operations.map((op) => `  ${formatOperation(op, origin)}`)].join('\n');
}
