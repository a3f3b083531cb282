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
 * The tracing channels (Node's `diagnostics_channel.tracingChannel`): `emq.job.enqueue` around an
 * admission call, `emq.job.process` around a handler run. With nobody subscribed the call is made
 * as it is, after one `hasSubscribers` read, and the row is written without trace fields.
 */
export const traces: {
  readonly enqueue: TracingChannel<unknown, EnqueueTraceContext>;
  readonly process: TracingChannel<unknown, ProcessTraceContext>;
} = {
  enqueue: tracingChannel<unknown, EnqueueTraceContext>('emq.job.enqueue'),
  process: tracingChannel<unknown, ProcessTraceContext>('emq.job.process'),
};
