import { checkConnectionChoice, InvalidArgumentError, isBrandedId, MalformedIdError, strictOptions, type TimeBound } from '@echo/protocol/queue';
import { checkCurveKeys } from './backoff.js';

/*
 * The option shapes of the queue's public entry points, each checked once per call before anything
 * is encoded or sent: a key the entry point does not read is refused, never ignored, and the names
 * BullMQ users bring get the sentence that says what to write here.
 */

/** BullMQ's per-job option names (JobsOptions) and what each one is here. */
const RETAIN_COMPLETED = "BullMQ's removeOnComplete is the queue's retention here: keep: { completed: { count, ageMs } } on Queue.open, or queue.setRetention";
const RETAIN_FAILED = "BullMQ's removeOnFail is the queue's retention here: keep: { failed: { count, ageMs } } on Queue.open, or queue.setRetention";
const TELEMETRY = 'telemetry is not an option here: tracing is set up once with the telemetry hooks of @echo/protocol';
const NO_REMOVE_DEPENDENCY = 'removeDependencyOnFailure is not supported: a flow child uses failParentOnFailure, ignoreDependencyOnFailure or continueParentOnFailure';

const JOB_HINTS: Readonly<Record<string, string>> = {
  delay: "BullMQ's delay is delayMs here (milliseconds), or runAt for a time",
  jobId: "BullMQ's jobId is id here for a branded job id, or key for any string (an idempotent business key)",
  removeOnComplete: RETAIN_COMPLETED,
  removeOnFail: RETAIN_FAILED,
  repeat: "BullMQ's repeat is queue.upsertScheduler(id, { everyMs } or { cron, tz }, payload) here",
  parent: "BullMQ's parent is queue.addFlow({ parent, children }) here (a parent is held until its children finish)",
  deduplication: "BullMQ's deduplication { id, ttl, extend, replace, keepLastIfActive } is dedupId, dedupTtlMs, dedupMode ('extend', 'replace' or 'debounce') and dedupKeepLast here, or key for a business key",
  debounce: "BullMQ's debounce is dedupId with dedupTtlMs and dedupMode: 'debounce' here (each new add restarts the window and replaces the kept job's payload)",
  keepLogs: "BullMQ's keepLogs is the keep argument of addLog(id, line, keep) here",
  stackTraceLimit: 'stackTraceLimit is not supported: a failure keeps its error text as lastError',
  sizeLimit: "BullMQ's sizeLimit is the queue's maxPayloadBytes here (Queue.open option)",
  repeatJobKey: 'repeatJobKey is not supported: schedulers are named by their id in queue.upsertScheduler',
  failParentOnFailure: 'failParentOnFailure is an option of a flow child here (queue.addFlow)',
  ignoreDependencyOnFailure: 'ignoreDependencyOnFailure is an option of a flow child here (queue.addFlow)',
  removeDependencyOnFailure: NO_REMOVE_DEPENDENCY,
  continueParentOnFailure: 'continueParentOnFailure is an option of a flow child here (queue.addFlow)',
  telemetry: TELEMETRY,
  ttl: "a waiting job's deadline is expireInMs here (milliseconds from admission), or expireAt for a time",
  expireIn: 'expireIn is expireInMs here (milliseconds)',
};

const QUEUE_HINTS: Readonly<Record<string, string>> = {
  prefix: 'prefix is not supported: every key is emq:{<queue name>}:…, as the protocol fixes it',
  defaultJobOptions: 'defaultJobOptions is not supported: give the options on each enqueue (attempts, backoff, timeoutMs), or set maxAttempts and backoff on the Worker',
  limiter: "BullMQ's limiter is queue.setRateLimit({ max, durationMs }) here",
  removeOnComplete: RETAIN_COMPLETED,
  removeOnFail: RETAIN_FAILED,
  sizeLimit: "BullMQ's sizeLimit is maxPayloadBytes here",
  streams: "BullMQ's streams.events.maxLen is queue.setEvents({ journal: maxLen }) here",
  skipVersionCheck: 'skipVersionCheck is not supported: the version fence is always checked',
  telemetry: TELEMETRY,
};

/**
 * The time-like job options and what bounds them: a span or an instant stored on the server, or a
 * span the worker waits on with a timer.
 */
const JOB_BOUNDS: Readonly<Record<string, TimeBound>> = {
  delayMs: 'span',
  runAt: 'instant',
  expireInMs: 'span',
  expireAt: 'instant',
  timeoutMs: 'timer',
  dedupTtlMs: 'span',
  keyRetentionMs: 'span',
};
const LANE_BOUNDS: Readonly<Record<string, TimeBound>> = { timeoutMs: 'timer', expireInMs: 'span', expireAt: 'instant' };
const AGE_BOUND: Readonly<Record<string, TimeBound>> = { ageMs: 'span' };

const ENQUEUE_KNOWN = ['name', 'attempts', 'backoff', 'timeoutMs', 'expireInMs', 'expireAt', 'lifo', 'timestamp', 'priority', 'id', 'runAt', 'delayMs', 'dedupId', 'dedupTtlMs', 'dedupMode', 'dedupKeepLast', 'key', 'keyRetentionMs'];

/** `Queue.open` options. */
export const checkQueueOptions = strictOptions('Queue.open options', { known: ['connection', 'connect', 'codec', 'durability', 'maxPayloadBytes', 'keep'], hints: QUEUE_HINTS });
const checkKeep = strictOptions('keep', { known: ['completed', 'failed'], hints: { removeOnComplete: 'write keep: { completed: { count } }', removeOnFail: 'write keep: { failed: { count } }' } });
const checkKeepCompleted = strictOptions('keep.completed', { known: ['count', 'ageMs'], hints: { age: 'age is ageMs here (milliseconds, not seconds)' }, bounds: AGE_BOUND });
const checkKeepFailed = strictOptions('keep.failed', { known: ['count', 'ageMs'], hints: { age: 'age is ageMs here (milliseconds, not seconds)' }, bounds: AGE_BOUND });

/** A retention policy (`keep` of Queue.open, `setRetention`) and its two bounds. */
export function checkKeepPolicy(keep: object | undefined): void {
  checkKeep(keep);
  if (keep === undefined) return;
  const { completed, failed } = keep as { completed?: object; failed?: object };
  checkKeepCompleted(completed);
  checkKeepFailed(failed);
}

/**
 * `Queue.open`'s connection must be an open `Connection`: a URL or driver options (BullMQ's
 * `connection: { host, port }`) belong in `connect`.
 */
export function checkSharedConnection(options: { readonly connection?: unknown; readonly connect?: unknown }): void {
  checkConnectionChoice('Queue.open options', options);
}

const checkEnqueueFlat = strictOptions('enqueue options', { known: ENQUEUE_KNOWN, hints: JOB_HINTS, bounds: JOB_BOUNDS });
const checkManyItem = strictOptions('enqueueMany item', {
  known: ['payload', ...ENQUEUE_KNOWN],
  hints: { ...JOB_HINTS, data: "BullMQ's data is payload here", opts: 'the options of enqueue sit on the item itself here, beside payload (no opts object)' },
  bounds: JOB_BOUNDS,
});
const checkLaneFlat = strictOptions('enqueueInLane options', {
  known: ['name', 'attempts', 'backoff', 'timeoutMs', 'expireInMs', 'expireAt', 'timestamp', 'id'],
  hints: { ...JOB_HINTS, delayMs: 'a lane job runs when its lane is served: delayMs is not an option of enqueueInLane', priority: 'lanes ignore priority: a lane job is served by the rotation', lifo: 'lifo is not an option of enqueueInLane: a lane serves its jobs in admission order' },
  bounds: LANE_BOUNDS,
});

function checkBackoff(backoff: unknown): void {
  if (backoff === undefined) return;
  if (typeof backoff !== 'object' || backoff === null) throw new InvalidArgumentError('backoff', 'must be a curve made by fixed(ms), exponential(base, cap) or jitter(curve)');
  checkCurveKeys(backoff);
}

/**
 * An `id` that is not a branded id is most often a business id (`'order-1'`): say that `key` is
 * the option for it, instead of a bare id-format error.
 */
function checkId(where: string, id: unknown): void {
  if (id === undefined || isBrandedId(id)) return;
  const shown = typeof id === 'string' ? JSON.stringify(id) : typeof id;
  throw new MalformedIdError(typeof id === 'string' ? id : shown, `${where}.id must be a branded job id (a minted JOB… id of 14 characters); for your own string write { key: ${shown} }, an idempotent business key that getJobByKey finds`);
}

/** `enqueue` options (and the job options under them). */
export function checkEnqueueOptions(options: object | null | undefined): void {
  checkEnqueueFlat(options);
  if (options === undefined || options === null) return;
  checkId('enqueue options', (options as { id?: unknown }).id);
  checkBackoff((options as { backoff?: unknown }).backoff);
}

/** One `enqueueMany` item: its payload beside the options `enqueue` takes. */
export function checkManyItemOptions(item: object): void {
  if (typeof item !== 'object' || (item as unknown) === null) throw new InvalidArgumentError('enqueueMany item', 'must be an object { payload, ...options }');
  checkManyItem(item);
  checkId('enqueueMany item', (item as { id?: unknown }).id);
  checkBackoff((item as { backoff?: unknown }).backoff);
}

/** `enqueueInLane` options. */
export function checkLaneOptions(options: object | null | undefined): void {
  checkLaneFlat(options);
  if (options === undefined || options === null) return;
  checkId('enqueueInLane options', (options as { id?: unknown }).id);
  checkBackoff((options as { backoff?: unknown }).backoff);
}

/** An `addFlow` spec: its parent, and each child at every depth. */
export const checkFlowSpec = strictOptions('addFlow spec', { known: ['parent', 'children'], hints: { name: 'a flow is named by its parent job (parent: { payload, id })', queueName: 'the parent runs in the queue addFlow is called on', data: "BullMQ's data is payload here" } });
export const checkFlowParent = strictOptions('addFlow parent', { known: ['payload', 'id', 'priority', 'key'], hints: { data: "BullMQ's data is payload here", opts: 'flow jobs take no job options here', name: 'flow jobs take no name here', queueName: 'the parent runs in the queue addFlow is called on' } });
export const checkFlowChild = strictOptions('addFlow child', {
  known: ['payload', 'id', 'queue', 'failParentOnFailure', 'ignoreDependencyOnFailure', 'continueParentOnFailure', 'children', 'priority', 'delayMs', 'key'],
  hints: { data: "BullMQ's data is payload here", queueName: "BullMQ's queueName is queue here", opts: 'a flow child takes failParentOnFailure, ignoreDependencyOnFailure and continueParentOnFailure on itself here (no opts object)', name: 'flow jobs take no name here', removeDependencyOnFailure: NO_REMOVE_DEPENDENCY },
});

/** `upsertScheduler` cadence and options. */
export const checkCadence = strictOptions('upsertScheduler cadence', {
  known: ['everyMs', 'firstInMs', 'cron', 'tz'],
  hints: { every: "BullMQ's every is everyMs here", pattern: "BullMQ's pattern is cron here", immediately: 'immediately is firstInMs: 0 here', offset: 'offset is not supported: use firstInMs', startDate: "BullMQ's startDate is startAt in the scheduler options here", endDate: "BullMQ's endDate is endAt in the scheduler options here", limit: 'limit is a scheduler option here (the fourth argument)' },
  bounds: { everyMs: 'span', firstInMs: 'span' },
});
export const checkSchedulerOptions = strictOptions('upsertScheduler options', {
  known: ['startAt', 'endAt', 'limit'],
  hints: { startDate: "BullMQ's startDate is startAt here", endDate: "BullMQ's endDate is endAt here", name: 'a scheduler is named by its id (the first argument)', opts: 'scheduled jobs take no job options here', every: 'the cadence is the second argument: { everyMs } or { cron, tz }', pattern: 'the cadence is the second argument: { cron, tz }' },
  bounds: { startAt: 'instant', endAt: 'instant' },
});
export const checkRepeatOptions = strictOptions('registerRepeat options', {
  known: ['everyMs', 'template', 'firstInMs'],
  hints: { every: "BullMQ's every is everyMs here", pattern: 'cron patterns are queue.upsertScheduler(id, { cron, tz }, payload); registerRepeat is its low-level every-N-ms form', data: 'the payload is template here' },
  bounds: { everyMs: 'span', firstInMs: 'span' },
});
export const checkCleanOptions = strictOptions('clean options', { known: ['state', 'olderThanMs', 'limit'], hints: { grace: "BullMQ's grace is olderThanMs here", type: "BullMQ's type is state here" }, bounds: { olderThanMs: 'span' } });
export const checkRetryJobsOptions = strictOptions('retryJobs options', { known: ['state', 'count', 'chunk'], hints: { timestamp: 'timestamp is not supported: retryJobs brings back the oldest dead jobs first' } });
export const checkListOptions = strictOptions('listJobs options', { known: ['offset', 'limit'], hints: { start: 'start is offset here', end: 'end is offset + limit here', asc: 'a listing is in its set\'s order' } });
export const checkDrainOptions = strictOptions('drain options', { known: ['includeScheduled'], hints: { delayed: "BullMQ's drain(delayed) is includeScheduled here" } });
export const checkObliterateOptions = strictOptions('obliterate options', { known: ['force', 'budget'], hints: { count: "BullMQ's count is budget here" } });
export const checkRemoveOptions = strictOptions('remove options', { known: ['dedupId', 'held'], hints: { removeChildren: 'removeChildren is not supported: remove each child by its id' } });
export const checkPriorityOptions = strictOptions('changePriority options', { known: ['lifo', 'payload'], hints: { priority: 'the priority is the second argument' } });
export const checkWaitOptions = strictOptions('waitUntilFinished options', { known: ['timeoutMs', 'events'], hints: { ttl: "BullMQ's ttl is timeoutMs here", queueEvents: 'pass an open QueueEvents as events' }, bounds: { timeoutMs: 'timer' } });
export const checkJournalOptions = strictOptions('journal options', { known: ['from', 'count', 'blockMs', 'connectionName'], hints: { lastEventId: "BullMQ's lastEventId is from: { after: id } here", blockingTimeout: "BullMQ's blockingTimeout is blockMs here" }, bounds: { blockMs: 'timer' } });
export const checkEventsSettings = strictOptions('setEvents settings', {
  known: ['chatty', 'journal', 'history', 'minutes'],
  hints: {
    maxLen: 'the journal length is journal: maxLen here',
    attempts: 'the attempt history is history: n here (the last n attempts kept per job)',
    metrics: "BullMQ's metrics are minutes: m here (per-minute completions and failures kept m minutes)",
  },
});
export const checkRateLimit = strictOptions('setRateLimit limit', { known: ['max', 'durationMs'], hints: { duration: "BullMQ's duration is durationMs here" }, bounds: { durationMs: 'span' } });
export const checkLaneRateLimit = strictOptions('laneRateLimit limit', { known: ['max', 'durationMs'], hints: { duration: "BullMQ's duration is durationMs here" }, bounds: { durationMs: 'span' } });
