import { strictOptions } from '@echo/protocol/bus';

/*
 * The strict checks of every options object the bus takes, built once. The hints name what raw
 * Redis Streams (XADD/XREADGROUP/XAUTOCLAIM arguments), NATS JetStream and BullMQ call the same
 * thing, since those are the habits streams users arrive with.
 */

const RETENTION = 'a stream keeps no length cap itself: trim it with stream.trim({ maxlen }) or keep it trimmed with bus.retention([{ name, window: { maxlen } }])';
const AGE = 'keep a stream to an age with bus.retention([{ name, window: { minid: { ago: ms } } }])';
const ENTRY_CAP = 'the byte cap on one entry is maxEntryBytes here';
export const GROUP_IS_DURABLE = 'a group is the durable: consume(group, handler, { consumer, start }) names it, and consumer names this process within it';
export const NO_ACK = "group entries are acked when the handler returns (nothing or 'ack'), at least once; to read without acks or server state, use stream.tail()";

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

/** A rejected promise when `check` throws, so a verb that answers a promise never throws instead. */
export function refusedOr(check: () => void): Promise<never> | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
