import { tracingChannel, type TracingChannel } from 'node:diagnostics_channel';
import type { TraceCarrier, TraceContext } from './trace-context.js';

/**
 * The context object of the `emq.job.enqueue` tracing channel (`tracing:emq.job.enqueue:start`,
 * `:end`, `:asyncStart`, `:asyncEnd`, `:error`), published around one admission call. A `start`
 * subscriber runs in the caller's async context, before anything is sent: it may write the
 * producer's W3C context into `carrier`, and a single admission (`enqueue`, `enqueueInLane`, timed or
 * keyed) writes it into the job row [TS] so every claim answers it.
 */
export interface EnqueueTraceContext {
  /** The queue's name (the `{q}` of its keys). */
  readonly queue: string;
  /** How many jobs the call carries. */
  readonly count: number;
  /** True when the jobs are scheduled for later (`runAt`/`delayMs`). */
  readonly delayed: boolean;
  /**
   * Filled by a `start` subscriber, read once the subscribers ran. Only a `traceparent` that is
   * W3C-shaped is written; nothing is written when it stays empty.
   */
  readonly carrier: TraceCarrier;
  /** The ids admitted or found duplicate, set before `asyncEnd`. */
  jobIds?: readonly string[];
  /** Set by the channel before `error`: what the admission threw. */
  error?: unknown;
}

/** One job a handler run covers, as the `emq.job.process` tracing channel describes it. */
export interface ProcessedJob {
  /** The job's id. */
  readonly jobId: string;
  /** The attempt number (the fencing token). */
  readonly attempt: number;
  /** The lane the job was claimed from, for lane jobs. */
  readonly group?: string | undefined;
  /** The producer's context, read from the row by the claim; absent when none was written. */
  readonly trace?: TraceContext | undefined;
}

/**
 * Runs `run` inside a context of the subscriber's (OpenTelemetry's `context.with`, or an
 * `AsyncLocalStorage.run`) and answers what it answers.
 */
export type Enter = <R>(run: () => R) => R;

/**
 * The context object of the `emq.job.process` tracing channel, published around one handler run:
 * one job for a `Worker`, the whole batch for a `BatchWorker` (`batch: true`). Subscribers that keep
 * their context in an `AsyncLocalStorage` of their own bind it with `start.bindStore`; those that
 * cannot reach their store (OpenTelemetry's context manager keeps it private) set `enter` from a
 * `start` subscriber, and the handler runs inside it. A second subscriber wraps the first:
 * `const outer = ctx.enter; ctx.enter = (run) => mine(() => (outer ? outer(run) : run()))`.
 */
export interface ProcessTraceContext {
  /** The queue's name. */
  readonly queue: string;
  /** True for a `BatchWorker` run: one handler call over `jobs`. */
  readonly batch: boolean;
  /** The jobs the run covers, in claim order. */
  readonly jobs: readonly ProcessedJob[];
  /** Set by a `start` subscriber: the handler runs as `enter(handler)`. */
  enter?: Enter;
  /** Set by the channel before `error`: what the handler threw. */
  error?: unknown;
}

/**
 * The context object of the `emq.stream.append` tracing channel, published around one append call
 * (`append`, `appendId`, or a whole `appendBatch`). A `start` subscriber runs in the caller's async
 * context, before anything is sent, and may write the producer's W3C context into `carrier`; a
 * stream opened with `traceContext: true` writes it into each record as the reserved [TS] fields
 * `_tp`/`_ts`. Other streams write nothing, whatever the carrier holds.
 */
export interface AppendTraceContext {
  /** The queue's name. */
  readonly queue: string;
  /** The stream's name. */
  readonly stream: string;
  /** How many records the call carries. */
  readonly count: number;
  /** True when the stream writes the carrier into its records (`traceContext: true`). */
  readonly carried: boolean;
  /** Filled by a `start` subscriber, read once the subscribers ran. */
  readonly carrier: TraceCarrier;
  /** The ids of the records appended, set before `asyncEnd`. */
  ids?: readonly string[];
  /** Set by the channel before `error`: what the append threw. */
  error?: unknown;
}

/** One stream entry a handler run covers, as the `emq.stream.process` tracing channel describes it. */
export interface ProcessedEntry {
  /** The record's EVT id. */
  readonly id: string;
  /** Its delivery count, this delivery included. */
  readonly attempts: number;
  /** The producer's context, read from the record; absent when it carries none (or the stream does not carry them). */
  readonly trace?: TraceContext | undefined;
}

/**
 * The context object of the `emq.stream.process` tracing channel, published around one group
 * handler call: one entry for a per-entry handler, the read's entries for a batch handler
 * (`batch: true`). As with `emq.job.process`, a `start` subscriber may set `enter` and the handler
 * runs inside it; a second subscriber wraps the first.
 */
export interface StreamProcessTraceContext {
  /** The queue's name. */
  readonly queue: string;
  /** The stream's name. */
  readonly stream: string;
  /** The consumer group. */
  readonly group: string;
  /** The consumer's name within the group. */
  readonly consumer: string;
  /** True for a batch handler: one call over `entries`. */
  readonly batch: boolean;
  /** The entries the call covers, in delivery order. */
  readonly entries: readonly ProcessedEntry[];
  /** Set by a `start` subscriber: the handler runs as `enter(handler)`. */
  enter?: Enter;
  /** Set by the channel before `error`: what the handler threw. */
  error?: unknown;
}

/**
 * The tracing channels (Node's `diagnostics_channel.tracingChannel`): `emq.job.enqueue` around an
 * admission call, `emq.job.process` around a job handler run, `emq.stream.append` around a stream
 * append call and `emq.stream.process` around a group handler call. With nobody subscribed the call
 * is made as it is, after one `hasSubscribers` read, and nothing is written for trace context.
 */
export const traces: {
  readonly enqueue: TracingChannel<unknown, EnqueueTraceContext>;
  readonly process: TracingChannel<unknown, ProcessTraceContext>;
  readonly streamAppend: TracingChannel<unknown, AppendTraceContext>;
  readonly streamProcess: TracingChannel<unknown, StreamProcessTraceContext>;
} = {
  enqueue: tracingChannel<unknown, EnqueueTraceContext>('emq.job.enqueue'),
  process: tracingChannel<unknown, ProcessTraceContext>('emq.job.process'),
  streamAppend: tracingChannel<unknown, AppendTraceContext>('emq.stream.append'),
  streamProcess: tracingChannel<unknown, StreamProcessTraceContext>('emq.stream.process'),
};
