import { EchoError, InvalidArgumentError } from '@echo/protocol/queue';
import { UnrecoverableError } from '@echo/queue';

export { UnrecoverableError };

/**
 * A BullMQ option or method this package knows but Echo's queue cannot honour yet. Thrown before
 * anything is written, so an application never runs on a silently dropped setting.
 */
export class NotSupportedError extends EchoError {
  /** The option or method, as BullMQ spells it (`lifo`, `Queue.getRepeatableJobs`). */
  readonly feature: string;

  constructor(feature: string, reason: string) {
    super('not_supported', `${feature} is not supported by @echo/bullmq: ${reason}`);
    this.feature = feature;
  }
}

/**
 * Thrown by a processor after `job.moveToDelayed(timestamp, token)`: the job is parked, so the
 * worker neither completes nor fails it.
 */
export class DelayedError extends Error {
  constructor(message = 'bullmq:movedToDelayed') {
    super(message);
    this.name = 'DelayedError';
  }
}

/** Thrown by a processor after `job.moveToWait(token)`: the job waits to run again. */
export class WaitingError extends Error {
  constructor(message = 'bullmq:movedToWait') {
    super(message);
    this.name = 'WaitingError';
  }
}

/**
 * Thrown by a processor after `job.moveToWaitingChildren(token)` answered true: the job waits for
 * its children and runs again when they are done.
 */
export class WaitingChildrenError extends Error {
  constructor(message = 'bullmq:movedToWaitingChildren') {
    super(message);
    this.name = 'WaitingChildrenError';
  }
}

/**
 * Thrown by a processor after `worker.rateLimit(ms)`: the job goes back to wait out the limit
 * instead of failing.
 */
export class RateLimitError extends Error {
  constructor(message = 'bullmq:rateLimitExceeded') {
    super(message);
    this.name = 'RateLimitError';
  }
}

/**
 * An input BullMQ refuses, refused the same way: the message is BullMQ's own text (applications and
 * their tests match on it), the class is Echo's typed `InvalidArgumentError` naming the argument.
 */
export class BullMQInputError extends InvalidArgumentError {
  constructor(argument: string, bullmqMessage: string) {
    super(argument, bullmqMessage);
    this.message = bullmqMessage;
  }
}

/**
 * A job command refused for the job's state, with BullMQ's own text (`Missing key for job 1.
 * updateProgress`, `Job 1 is not in the delayed state. promote`): applications match on it. The
 * Echo error that caused it is kept as `cause`.
 */
export class JobStateError extends EchoError {
  /** The job's id, as the application sees it. */
  readonly jobId: string;
  /** BullMQ's name of the refused command. */
  readonly command: string;

  constructor(jobId: string, command: string, message: string, cause?: unknown) {
    super('bullmq_job_state', message, cause === undefined ? undefined : { cause });
    this.message = message;
    this.jobId = jobId;
    this.command = command;
  }
}

/** BullMQ's error for a job whose row is gone. */
export function missingJob(jobId: string, command: string, cause?: unknown): JobStateError {
  return new JobStateError(jobId, command, `Missing key for job ${jobId}. ${command}`, cause);
}

/**
 * Turns Echo's refusals of a job command into BullMQ's: a gone row is `Missing key for job …`, a
 * state precondition `Job … is not in the <state> state`. Anything else passes through unchanged.
 */
export function asBullMQError(error: unknown, jobId: string, command: string, state: string): unknown {
  if (!(error instanceof EchoError)) return error;
  const detail = (error as EchoError & { readonly detail?: unknown }).detail;
  if (detail === 'job gone') return missingJob(jobId, command, error);
  if (error.code === 'emqstate' || error.code === 'emqstale') return new JobStateError(jobId, command, `Job ${jobId} is not in the ${state} state. ${command}`, error);
  return error;
}

/** A catch handler that throws Echo's refusal of `command` on job `jobId` as BullMQ's error (see {@link asBullMQError}). */
export function refused(jobId: string, command: string, state: string): (error: unknown) => never {
  return (error: unknown) => {
    throw asBullMQError(error, jobId, command, state);
  };
}
