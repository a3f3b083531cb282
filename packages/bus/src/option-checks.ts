import { InvalidArgumentError, strictOptions } from '@echo/protocol/bus';

/*
 * The strict checks of every options object the bus takes, built once. The hints name what raw
 * Redis Streams (XADD/XREADGROUP/XAUTOCLAIM arguments), NATS JetStream and BullMQ call the same
 * thing, since those are the habits streams users arrive with.
 */

const RETENTION = 'a stream keeps no length cap itself: trim it with stream.trim({ maxlen }) or keep it trimmed with bus.retention([{ name, window: { maxlen } }])';
const AGE = 'keep a stream to an age with bus.retention([{ name, window: { minid: { ago: ms } } }])';
const ENTRY_CAP = 'the byte cap on one entry is maxEntryBytes here';
const GROUP_IS_DURABLE = 'a group is the durable: consume(group, handler, { consumer, start }) names it, and consumer names this process within it';
const NO_ACK = "group entries are acked when the handler returns (nothing or 'ack'), at least once; to read without acks or server state, use stream.tail()";

/** `Bus.open(options)` / `Bus.open(queue, options)`. */
export const checkBusOptions = strictOptions('Bus.open options', {
  known: ['connection', 'connect', 'minter', 'maxEntryBytes'],
  hints: {
    maxlen: RETENTION,
    MAXLEN: RETENTION,
    url: 'connect: url here (or connection: an open Connection to share)',
    host: 'connect: { host, port } here',
    port: 'connect: { host, port } here',
    redis: 'an open Echo Connection is connection here; a URL or connection options is connect',
    client: 'an open Echo Connection is connection here; a URL or connection options is connect',
    prefix: "Echo's keys are fixed by the protocol (emq:{...}): there is no key prefix",
    queue: 'the queue is the first argument: Bus.open(queue, options); a bus for streams only needs none',
    servers: 'NATS servers: the Redis server is connect: url here',
    maxPayloadBytes: ENTRY_CAP,
    max_msg_size: ENTRY_CAP,
  },
});

const WINDOW = 'how long a message id is remembered is dedupWindowMs here (milliseconds, default 2 minutes), on the stream';
const MSG_ID = "a publish message id is msgId here: append(fields, { msgId })";

/** `bus.stream(name, options)` / `new Stream(...)`. */
export const checkStreamOptions = strictOptions('stream options', {
  known: ['traceContext', 'maxEntryBytes', 'dedupWindowMs'],
  hints: {
    duplicate_window: WINDOW,
    duplicateWindow: WINDOW,
    duplicates: WINDOW,
    dedupWindow: WINDOW,
    maxlen: RETENTION,
    MAXLEN: RETENTION,
    max_msgs: RETENTION,
    maxMsgs: RETENTION,
    max_age: AGE,
    maxAge: AGE,
    retention: 'retention is a driver here: bus.retention([{ name, window }]).start()',
    max_msg_size: ENTRY_CAP,
    maxMsgSize: ENTRY_CAP,
    maxPayloadBytes: ENTRY_CAP,
  },
  bounds: { dedupWindowMs: 'span' },
});

/** The functional `append`/`appendBatch` options. */
export const checkAppendOptions = strictOptions('append options', {
  known: ['minter', 'traceContext', 'maxEntryBytes'],
  hints: { maxlen: RETENTION, MAXLEN: RETENTION, id: 'a caller-minted EVT id goes through appendId(id, fields)', maxPayloadBytes: ENTRY_CAP },
});

/** `stream.append(fields, options)`: what the stream's own options do not already say. */
export const checkStreamAppendOptions = strictOptions('append options', {
  known: ['msgId'],
  hints: {
    'Nats-Msg-Id': MSG_ID,
    msgID: MSG_ID,
    messageId: MSG_ID,
    jobId: MSG_ID,
    deduplication: MSG_ID,
    dedupId: MSG_ID,
    dedupWindowMs: 'the dedup window is a stream option: bus.stream(name, { dedupWindowMs })',
    id: 'a caller-minted EVT id goes through appendId(id, fields); a publish message id is msgId',
    maxlen: RETENTION,
    MAXLEN: RETENTION,
  },
});

/** `stream.appendBatch(records, options)`. */
export const checkStreamBatchOptions = strictOptions('appendBatch options', {
  known: ['msgIds'],
  hints: {
    msgId: 'a batch takes one message id per record: { msgIds: [...] }',
    dedupWindowMs: 'the dedup window is a stream option: bus.stream(name, { dedupWindowMs })',
    maxlen: RETENTION,
  },
});

/** The functional `appendUnique` options. */
export const checkDedupAppendOptions = strictOptions('appendUnique options', {
  known: ['minter', 'traceContext', 'maxEntryBytes', 'msgId', 'dedupWindowMs'],
  hints: { 'Nats-Msg-Id': MSG_ID, messageId: MSG_ID, duplicate_window: WINDOW, duplicateWindow: WINDOW, maxPayloadBytes: ENTRY_CAP },
  bounds: { dedupWindowMs: 'span' },
});

/** The functional `appendBatchUnique` options. */
export const checkDedupBatchOptions = strictOptions('appendBatchUnique options', {
  known: ['minter', 'traceContext', 'maxEntryBytes', 'msgIds', 'dedupWindowMs'],
  hints: { msgId: 'a batch takes one message id per record: { msgIds: [...] }', duplicate_window: WINDOW, duplicateWindow: WINDOW, maxPayloadBytes: ENTRY_CAP },
  bounds: { dedupWindowMs: 'span' },
});

/** The functional `appendId` options. */
export const checkAppendIdOptions = strictOptions('appendId options', {
  known: ['traceContext', 'maxEntryBytes'],
  hints: { maxlen: RETENTION, MAXLEN: RETENTION, maxPayloadBytes: ENTRY_CAP },
});

const COUNT = 'at most this many entries is count here';

/** `stream.read(range)`. */
export const checkReadRange = strictOptions('read range', {
  known: ['from', 'to', 'count'],
  hints: {
    start: "XRANGE's start is from here ('-' or an EVT id, inclusive)",
    end: "XRANGE's end is to here ('+' or an EVT id, inclusive)",
    COUNT: COUNT,
    limit: COUNT,
  },
});

/** `stream.readWindow(t0, t1, options)` / `stream.readSince(t0, options)`. */
export const checkWindowOptions = strictOptions('window options', { known: ['count'], hints: { COUNT: COUNT, limit: COUNT } });

/** The functional reads' options. */
export const checkReadOptions = strictOptions('read options', { known: ['traceContext'] });

const BLOCK_TAIL = 'how long one blocking read waits is blockMs here (milliseconds)';
const FROM = "where a tail starts is from here: 'new', 'head', { after: id } or { at: instant }";

/** `stream.tail(options)`. */
export const checkTailOptions = strictOptions('tail options', {
  known: ['from', 'count', 'blockMs', 'connectionName', 'traceContext'],
  hints: {
    block: BLOCK_TAIL,
    BLOCK: BLOCK_TAIL,
    COUNT: 'entries per read is count here',
    start: FROM,
    deliver_policy: FROM,
    deliverPolicy: FROM,
    noack: 'a tail acks nothing and keeps no server state; a group consumer (consume) acks',
    NOACK: 'a tail acks nothing and keeps no server state; a group consumer (consume) acks',
    name: 'CLIENT SETNAME of the tail connection is connectionName here',
  },
  bounds: { blockMs: 'timer' },
});

const START = "where a new group starts is start here: 'new', 'head', { at: instant } or { after: id } (required)";
const IDLE = 'how long an entry sits unacked before it is redelivered is minIdleMs here (milliseconds)';
const MAX_DELIVER = 'the deliveries an entry may have before it is dead-lettered is maxDeliveries here';
const ORDER_BY = 'per-key order is orderBy here: the field whose value orders entries (same value one after another, across the group)';
const BACKOFF = 'redelivery delays are backoff here: a list of ms, the n-th redelivery waits backoff[n - 1] (the last repeats)';
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

/** `stream.deadLetters(range)`. */
export const checkDeadLetterRange = strictOptions('dead-letter range', {
  known: ['after', 'count'],
  hints: { from: 'paging is after here (a record id, exclusive)', start: 'paging is after here (a record id, exclusive)', limit: COUNT, COUNT: COUNT },
});

/** `stream.redrive(target)`. */
export const checkRedriveTarget = strictOptions('redrive target', {
  known: ['ids', 'all', 'group'],
  hints: { id: 'redrive takes a list: { ids: [id] }', records: 'redrive takes entry ids: { ids } (or { all: true })' },
});

const TRIM_HINTS = {
  MAXLEN: 'MAXLEN is maxlen here',
  maxLen: 'the newest entries to keep is maxlen here',
  MINID: 'MINID is minid here (an instant: Date or Unix ms)',
  minId: 'the oldest instant to keep is minid here',
  exact: 'exact trimming is approx: false here',
  LIMIT: "XTRIM's LIMIT is not used; approx: true trims whole nodes only",
  limit: "XTRIM's LIMIT is not used; approx: true trims whole nodes only",
};

/** `stream.trim(window)` and a retention window. */
export const checkTrimWindow = strictOptions('trim window', { known: ['maxlen', 'minid', 'approx'], hints: TRIM_HINTS });

/** `RetentionDriver` options. */
export const checkRetentionOptions = strictOptions('retention options', {
  known: ['intervalMs', 'now', 'onError'],
  hints: { interval: 'the tick period is intervalMs here (milliseconds)' },
  bounds: { intervalMs: 'timer' },
});

/** One target of the functional `RetentionDriver`. */
export const checkRetentionTarget = strictOptions('retention target', {
  known: ['queue', 'name', 'window'],
  hints: { stream: 'the stream is name here', maxlen: 'the window goes in window: { maxlen }', minid: 'the window goes in window: { minid }' },
});

/** One target of `bus.retention(...)`: the bus places it. */
export const checkBusRetentionTarget = strictOptions('bus retention target', {
  known: ['name', 'window'],
  hints: {
    queue: "a bus retention target is the bus's own stream: { name, window }",
    stream: 'the stream is name here',
    maxlen: 'the window goes in window: { maxlen }',
    minid: 'the window goes in window: { minid }',
  },
});

/** `bus.events(options)`. */
export const checkListenOptions = strictOptions('events options', {
  known: ['connectionName', 'onError'],
  hints: { name: 'CLIENT SETNAME of the listener connection is connectionName here', events: 'filter by name in the listener: events.on((e) => ...)' },
});

const POSITION_HINTS = {
  time: 'an instant is { at: Date | Unix ms } here',
  ms: 'an instant is { at: Date | Unix ms } here',
  id: 'a position after an entry is { after: evtId } here',
  from: 'a position after an entry is { after: evtId } here',
};

/** A group's `start` or a tail's `from` given as an object: `{ at }` or `{ after }`, one of them. */
export const checkPosition = strictOptions('position', { known: ['at', 'after'], hints: POSITION_HINTS });
