import { CodecError, flowLink, type BrandedId, type FlowLink, type JobId, type JobOptionFields, type JobRow, type ParentPolicy, type RowState, type TraceContext } from '@echo/protocol/queue';
import { decodeResult, type Codec } from './codec.js';
import { laneNameOf } from './lane-names.js';
import { parseBackoff, type Backoff } from './backoff.js';

export type { ParentPolicy, RowState };

/** Where a job sits, as `state_lookup` answers (protocol.md §5.3). */
export type JobPosition = 'pending' | 'active' | 'scheduled' | 'dead' | 'awaiting_children' | 'completed' | 'expired' | 'unknown' | 'absent';

/** A flow child's link to its parent, read from the row. */
export type ParentLink = FlowLink;

/**
 * A job leased to this worker. `token` is the attempts value the claim minted; every settlement
 * carries it, so a worker whose lease lapsed and was re-claimed cannot settle the job any more.
 */
export interface ClaimedJob<T> {
  readonly id: JobId;
  /** The decoded payload; decoding happens on first read, so a bad payload fails the handler, not the claim. */
  readonly payload: T;
  /** The raw payload text as stored. */
  readonly rawPayload: string;
  /** The attempt number, 1 on the first claim; also the fencing token. */
  readonly attempts: number;
  /** The lane this job was claimed from, for lane jobs. */
  readonly group: BrandedId | undefined;
  /** Set when the job is a flow child. */
  readonly parent: ParentLink | undefined;
  /** The job's name, when it was enqueued with one. */
  readonly name: string | undefined;
  /** The job's own attempt cap; the worker's `maxAttempts` applies when absent. */
  readonly maxAttempts: number | undefined;
  /** The job's own retry curve; the worker's `backoff` applies when absent. */
  readonly backoff: Backoff | undefined;
  /** How long one attempt may run before it fails with `JobTimeoutError`; no limit when absent. */
  readonly timeoutMs: number | undefined;
  /**
   * The producer's W3C trace context, written into the row at admission when a tracing subscriber
   * (such as `@echo/otel`) was listening; absent otherwise.
   */
  readonly trace: TraceContext | undefined;
}

/** The job row as stored (protocol.md §5.1). Unknown fields are kept in `extra` and never interpreted. */
export interface JobRecord<T> {
  readonly id: JobId;
  /** The row's `state`; one of {@link RowState} when written through the protocol. */
  readonly state: string;
  readonly attempts: number;
  readonly payload: T;
  readonly rawPayload: string;
  /** The lane's group id on the wire, for lane jobs. */
  readonly group: string | undefined;
  /**
   * The lane the job sits in, as its producer named it (`'tenantA'`), or the group id when the lane
   * was given by id; `undefined` for a job outside the lanes.
   */
  readonly lane: string | undefined;
  readonly lastError: string | undefined;
  readonly progress: string | undefined;
  /** The job's name, when it was enqueued with one. */
  readonly name: string | undefined;
  readonly stalled: number;
  readonly parent: ParentLink | undefined;
  /**
   * [TS] The handler's result on a retained completed job (`state: 'completed'`), decoded: the value
   * the handler returned (a string, a number, an object…). `undefined` when it gave none.
   */
  readonly result: unknown;
  /** [TS] The result as the row stores it (plain text for a plain string, JSON otherwise). */
  readonly rawResult: string | undefined;
  /** [TS] When the job finished (server ms), on a retained completed or a dead job. */
  readonly finishedAt: number | undefined;
  /** [TS] The idempotency key (dedup id or business key) the job was admitted under. */
  readonly key: string | undefined;
  /** [TS] The created time the producer gave (`timestamp` on enqueue, epoch ms); `undefined` when it gave none. */
  readonly timestamp: number | undefined;
  /** [TS] The deadline the job had to start by (`expireInMs`/`expireAt`, server epoch ms); `undefined` without one. */
  readonly expireAt: number | undefined;
  /** [TS] The scheduler (`upsertScheduler` id) whose occurrence this job is, when one fired it. */
  readonly scheduler: string | undefined;
  readonly extra: Readonly<Record<string, string>>;
}

/** Builds a claimed job whose payload decodes lazily. */
export function claimedJob<T>(
  codec: Codec<T>,
  fields: { id: JobId; raw: string; attempts: number; group: BrandedId | undefined; parent: ParentLink | undefined; options?: JobOptionFields },
): ClaimedJob<T> {
  let decoded: { value: T } | undefined;
  const o = fields.options ?? {};
  return {
    id: fields.id,
    rawPayload: fields.raw,
    attempts: fields.attempts,
    group: fields.group,
    parent: fields.parent,
    name: o.name,
    maxAttempts: o.maxAttempts,
    backoff: o.backoff === undefined ? undefined : parseBackoff(o.backoff),
    timeoutMs: o.timeoutMs,
    trace: o.trace,
    get payload(): T {
      decoded ??= { value: codec.decode(fields.raw) };
      return decoded.value;
    },
  };
}

/** The states in which a row has finished, so a `finished_at` field on it means what it says. */
const FINISHED_STATES: ReadonlySet<string> = new Set(['completed', 'dead', 'expired']);

/**
 * [TS] `finished_at` read only when the row's state makes it true: a runtime that follows only the
 * spec reprocesses a dead row without knowing the field, so a pending row may still carry it.
 */
function finishedAtOf(row: JobRow): number | undefined {
  if (row.unknown.finished_at === undefined || !FINISHED_STATES.has(row.rawState ?? '')) return undefined;
  return Number(row.unknown.finished_at);
}

/** Turns a stored row into a typed, decoded record; `undefined` when the row does not exist. */
export function jobRecord<T>(id: JobId, queue: string, codec: Codec<T>, row: JobRow | undefined): JobRecord<T> | undefined {
  if (!row) return undefined;
  let payload: T;
  try {
    payload = codec.decode(row.payload);
  } catch (error) {
    throw new CodecError(`job ${id}: ${(error as Error).message}`, { cause: error });
  }
  return {
    id,
    state: row.rawState ?? 'unknown',
    attempts: row.attempts,
    payload,
    rawPayload: row.payload,
    group: row.group,
    lane: laneNameOf(row.group, row.unknown.lane),
    lastError: row.lastError,
    progress: row.progress,
    name: row.unknown.name,
    stalled: row.stalled,
    parent: flowLink(row.parent, row.parentQueue, row.parentPolicy, queue),
    result: decodeResult(row.unknown.result),
    rawResult: row.unknown.result,
    finishedAt: finishedAtOf(row),
    key: row.unknown.dedup,
    timestamp: row.unknown.timestamp === undefined ? undefined : Number(row.unknown.timestamp),
    expireAt: row.unknown.expire_at === undefined ? undefined : Number(row.unknown.expire_at),
    scheduler: row.unknown.scheduler,
    extra: row.unknown,
  };
}
