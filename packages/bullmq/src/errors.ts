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
