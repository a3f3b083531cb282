import { InvalidArgumentError, strictOptions } from '@echo/protocol/bus';
import { GROUP_IS_DURABLE, NO_ACK } from '../core/option-checks.js';

const START = "where a new group starts is start here: 'new', 'head', { at: instant } or { after: id } (required)";
const IDLE = 'how long an entry sits unacked before it is redelivered is minIdleMs here (milliseconds)';
const MAX_DELIVER = 'the deliveries an entry may have before it is dead-lettered is maxDeliveries here';
const ORDER_BY = 'per-key order is orderBy here: the field whose value orders entries (same value one after another, across the group)';
const BACKOFF = 'redelivery delays are backoff here: a list of ms (the n-th redelivery waits backoff[n - 1], the last repeats) or a Backoff curve such as exponential(base, cap)';
const BEAT = 'how long one blocking read waits is beatMs here (milliseconds; also the claim period)';

/** `stream.consume(group, handler, options)` / `stream.consumeBatch(...)`. */
export const checkConsumeOptions = strictOptions('consume options', {
  known: ['start', 'consumer', 'minIdleMs', 'beatMs', 'count', 'concurrency', 'maxDeliveries', 'connectionName', 'onError', 'traceContext', 'orderBy', 'backoff'],
  hints: {
    key: ORDER_BY,
    partitionKey: ORDER_BY,
    partition: ORDER_BY,
    groupId: ORDER_BY,
    orderingKey: ORDER_BY,
    BackOff: BACKOFF,
    back_off: BACKOFF,
    retryDelays: BACKOFF,
    durable: GROUP_IS_DURABLE,
    durable_name: GROUP_IS_DURABLE,
    durableName: GROUP_IS_DURABLE,
    group: 'the group is the first argument: consume(group, handler, options)',
    name: 'the consumer name within the group is consumer here',
    consumerName: 'the consumer name within the group is consumer here',
    ack_wait: IDLE,
    ackWait: IDLE,
    minIdleTime: IDLE,
    min_idle_time: IDLE,
    lockDuration: IDLE,
    max_deliver: MAX_DELIVER,
    maxDeliver: MAX_DELIVER,
    attempts: MAX_DELIVER,
    deliver_policy: START,
    deliverPolicy: START,
    from: START,
    block: BEAT,
    BLOCK: BEAT,
    noack: NO_ACK,
    NOACK: NO_ACK,
    COUNT: 'entries per read or claim is count here',
    batch: 'entries per read is count here; consumeBatch hands a whole read to one handler call',
    max_batch: 'entries per read is count here; consumeBatch hands a whole read to one handler call',
    max_ack_pending: 'handler calls in flight at once is concurrency here; a read holds at most count entries',
  },
  bounds: { minIdleMs: 'span', beatMs: 'timer' },
});

const RETRY_IN = 'a redelivery delay is { retryInMs } here (milliseconds)';
const DEAD_REASON = "a dead-letter verdict is { deadLetter: reason } here (the reason is a string)";

const checkVerdictKeys = strictOptions('verdict', {
  known: ['retryInMs', 'deadLetter'],
  hints: { delay: RETRY_IN, delayMs: RETRY_IN, retryIn: RETRY_IN, retryAfterMs: RETRY_IN, backoff: RETRY_IN, reason: DEAD_REASON, deadLetterReason: DEAD_REASON, term: DEAD_REASON },
  bounds: { retryInMs: 'span' },
});

/**
 * A handler's verdict given as an object: `{ retryInMs }` or `{ deadLetter }`, exactly one, with no
 * other key, so a misspelt verdict fails the delivery instead of being read as something else.
 * @throws UnknownOptionError, OptionRangeError or InvalidArgumentError.
 */
export function checkVerdict(verdict: object): void {
  checkVerdictKeys(verdict);
  if (Object.hasOwn(verdict, 'retryInMs') && Object.hasOwn(verdict, 'deadLetter')) {
    throw new InvalidArgumentError('verdict', 'takes { retryInMs } or { deadLetter }, not both');
  }
}
