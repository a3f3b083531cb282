import { InvalidArgumentError } from '../errors/validation.js';
import type { JobId } from '../ids/branded.js';
import { assertBrandedId } from '../ids/guards.js';
import type { ParentPolicy } from '../records.js';
import { isTraceparent, isTracestate, MAX_TRACESTATE, type TraceContext } from '../telemetry/trace-context.js';

/** A whole number of at least `min`, or a typed refusal before anything is sent. */
export function whole(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new InvalidArgumentError(name, `must be an integer >= ${min}`);
  return value;
}

/** A fencing token (the attempts value a claim minted) as the scripts compare it: decimal text. */
export function tokenArg(token: number): string {
  if (!Number.isSafeInteger(token) || token < 0) throw new InvalidArgumentError('token', 'must be a non-negative integer');
  return String(token);
}

/** A branded id, checked; a wrong namespace is the script's to refuse, so it fails the same way everywhere. */
export function idArg(id: string): JobId {
  assertBrandedId(id);
  return id as JobId;
}

/** A flow child's link to its parent, as the row and the claim reply carry it (queue.md §11). */
export interface FlowLink {
  readonly id: JobId;
  /** The parent's queue; equal to the child's own when they share one. */
  readonly queue: string;
  readonly policy: ParentPolicy;
}

/** Reads the parent link fields; an unknown policy reads as `fp` (queue.md §3.4). */
export function flowLink(parent: unknown, parentQueue: unknown, policy: unknown, ownQueue: string): FlowLink | undefined {
  if (typeof parent !== 'string' || parent === '') return undefined;
  return {
    id: parent as JobId,
    queue: typeof parentQueue === 'string' && parentQueue !== '' ? parentQueue : ownQueue,
    policy: policy === 'id' || policy === 'cp' ? policy : 'fp',
  };
}

/** An integer reply. */
export function int(reply: unknown): number {
  return Number(reply);
}

/** Replies 1 / 0 as the admission verdict. */
export function admitted(reply: unknown): 'enqueued' | 'duplicate' {
  return Number(reply) === 1 ? 'enqueued' : 'duplicate';
}

/**
 * The per-job options a row may carry [TS] (fields `name`, `max_attempts`, `backoff`,
 * `timeout_ms`, `traceparent`, `tracestate`), written by the admissions and answered by every claim
 * after the spec's fields (`priority` is written, not answered). `backoff` is the pillar's curve
 * spec as text and the trace fields are W3C text; the protocol interprets neither.
 */
export interface JobOptionFields {
  /** A label handlers and events see; at most {@link MAX_JOB_NAME} characters. */
  readonly name?: string;
  /** Attempts before the job is dead-lettered, in place of the worker's default. */
  readonly maxAttempts?: number;
  /** The retry curve, encoded by the pillar. */
  readonly backoff?: string;
  /** How long one attempt may run, in ms. */
  readonly timeoutMs?: number;
  /**
   * Flat pending order: higher first, mint order within one priority; the pending entry scores
   * `-priority`. 0 (the default) is not written. Integers within ±{@link MAX_PRIORITY}.
   */
  readonly priority?: number;
  /** The producer's W3C trace context: fields `traceparent` and (when present) `tracestate`. */
  readonly trace?: TraceContext;
  /**
   * [TS] The name a lane job's producer gave its lane (`'tenantA'`), kept in the row's `lane` field
   * so reads can show it; the wire's `group` stays the branded id derived from it.
   */
  readonly lane?: string;
  /**
   * [TS] The job's deadline as a server epoch ms (row field `expire_at`): a claim that meets the job
   * past it settles it as `expired` instead of leasing it. Exclusive with `expireInMs`.
   */
  readonly expireAt?: number;
  /** [TS] The deadline as a span from the server's now at admission, in ms (sent as `expire_in`). */
  readonly expireInMs?: number;
  /**
   * [TS] LIFO admission (row field `lifo`): claimed ahead of every waiting job of its priority, the
   * newest first. Honoured by the immediate flat admissions (not by schedule or lanes).
   */
  readonly lifo?: boolean;
  /** [TS] The job's created time as the app sees it, epoch ms (row field `timestamp`), for imports. */
  readonly timestamp?: number;
}

/** The largest priority magnitude admitted: scores stay exact and compact. */
export const MAX_PRIORITY = 2_097_152;

/**
 * A job's priority, checked (an integer within ±{@link MAX_PRIORITY}; `undefined` is 0), or
 * {@link InvalidArgumentError}: callers that land several nodes check each before any wire I/O.
 */
export function checkPriority(priority: number | undefined): number {
  if (priority === undefined) return 0;
  if (!Number.isSafeInteger(priority) || Math.abs(priority) > MAX_PRIORITY) throw new InvalidArgumentError('priority', `must be an integer within ±${String(MAX_PRIORITY)}`);
  return priority;
}

/** The longest job name admitted, in characters. */
export const MAX_JOB_NAME = 256;

/** The row field/value pairs of `options`, checked, for an admission's trailing arguments. */
export function jobOptionArgs(options: JobOptionFields | undefined): string[] {
  if (options === undefined) return [];
  const out: string[] = [];
  // Checked as unknown: JavaScript callers are not held to the type.
  const name: unknown = options.name;
  if (name !== undefined) {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_JOB_NAME) {
      throw new InvalidArgumentError('name', `must be a string of 1 to ${String(MAX_JOB_NAME)} characters`);
    }
    out.push('name', name);
  }
  if (options.maxAttempts !== undefined) out.push('max_attempts', String(whole('attempts', options.maxAttempts, 1)));
  const backoff: unknown = options.backoff;
  if (backoff !== undefined) {
    if (typeof backoff !== 'string') throw new InvalidArgumentError('backoff', 'must be the encoded curve');
    out.push('backoff', backoff);
  }
  if (options.timeoutMs !== undefined) out.push('timeout_ms', String(whole('timeoutMs', options.timeoutMs, 1)));
  const priority = checkPriority(options.priority);
  if (priority !== 0) out.push('priority', String(priority));
  if (options.trace !== undefined) out.push(...traceArgs(options.trace));
  const lane: unknown = options.lane;
  if (lane !== undefined) {
    if (typeof lane !== 'string' || lane.length === 0 || lane.length > MAX_JOB_NAME) {
      throw new InvalidArgumentError('lane', `must be a string of 1 to ${String(MAX_JOB_NAME)} characters`);
    }
    out.push('lane', lane);
  }
  if (options.expireAt !== undefined && options.expireInMs !== undefined) throw new InvalidArgumentError('expireAt', 'give expireAt or expireInMs, not both');
  if (options.expireAt !== undefined) out.push('expire_at', String(whole('expireAt', options.expireAt, 0)));
  if (options.expireInMs !== undefined) out.push('expire_in', String(whole('expireInMs', options.expireInMs, 1)));
  const lifo: unknown = options.lifo;
  if (lifo !== undefined && typeof lifo !== 'boolean') throw new InvalidArgumentError('lifo', 'must be a boolean');
  if (lifo === true) out.push('lifo', '1');
  if (options.timestamp !== undefined) out.push('timestamp', String(whole('timestamp', options.timestamp, 0)));
  return out;
}

function traceArgs(trace: TraceContext): string[] {
  if (!isTraceparent(trace.traceparent)) throw new InvalidArgumentError('traceparent', 'must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)');
  const state: unknown = trace.tracestate;
  if (state === undefined || state === '') return ['traceparent', trace.traceparent];
  if (!isTracestate(state)) throw new InvalidArgumentError('tracestate', `must be printable ASCII of at most ${String(MAX_TRACESTATE)} characters`);
  return ['traceparent', trace.traceparent, 'tracestate', state];
}

/**
 * Reads the per-job option fields of a claim entry (false or missing when absent), in the order
 * the claims answer them: name, max_attempts, backoff, timeout_ms, traceparent, tracestate.
 */
export function readJobOptions(name: unknown, maxAttempts: unknown, backoff: unknown, timeoutMs: unknown, traceparent?: unknown, tracestate?: unknown): JobOptionFields {
  const out: { name?: string; maxAttempts?: number; backoff?: string; timeoutMs?: number; trace?: TraceContext } = {};
  if (typeof name === 'string') out.name = name;
  const max = typeof maxAttempts === 'string' ? Number(maxAttempts) : NaN;
  if (Number.isSafeInteger(max) && max >= 1) out.maxAttempts = max;
  if (typeof backoff === 'string') out.backoff = backoff;
  const timeout = typeof timeoutMs === 'string' ? Number(timeoutMs) : NaN;
  if (Number.isSafeInteger(timeout) && timeout >= 1) out.timeoutMs = timeout;
  if (typeof traceparent === 'string') out.trace = typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
  return out;
}
