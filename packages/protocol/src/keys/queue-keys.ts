import { InvalidArgumentError } from '../errors/validation.js';
import type { BrandedId } from '../ids/branded.js';
import { describeValue } from '../ids/describe-value.js';
import { assertBrandedId } from '../ids/guards.js';
import { assertDedupId, assertQueueName, assertRepeatName, assertStreamName } from './names.js';
import { JOB_SUBS, isJobSub } from './registry.js';
import type { JobSub, StreamPart } from './registry.js';

/**
 * Every key of one queue (protocol.md §3.2). The fixed keys are computed once; the parameterised ones
 * check their argument on every call, so a malformed id or name never becomes a key. The builders are
 * closures, not methods, so they may be destructured and passed around.
 */
export interface QueueKeys {
  /** The queue name the keys were built for. */
  readonly queue: string;
  /** `emq:{q}:`, the prefix every key of the queue shares. */
  readonly base: string;
  /** ZSET of pending job ids, score 0. */
  readonly pending: string;
  /** ZSET of claimed job ids, score = lease deadline. */
  readonly active: string;
  /** ZSET of scheduled job ids, score = run-at. */
  readonly schedule: string;
  /** ZSET of dead-lettered job ids, score 0. */
  readonly dead: string;
  /** HASH of queue settings: `paused`, `concurrency`, `max`. */
  readonly meta: string;
  /** STRING rate-window counter. */
  readonly limiter: string;
  /** LIST of serviceable group ids. */
  readonly ring: string;
  /** LIST of readiness tokens that consumers block on. */
  readonly wake: string;
  /** SET of paused group ids. */
  readonly paused: string;
  /** HASH group → in-flight count. */
  readonly gactive: string;
  /** HASH group → concurrency ceiling. */
  readonly glimit: string;
  /** HASH group → weight. */
  readonly gweight: string;
  /** ZSET of repeat names, score = next run. */
  readonly repeat: string;
  /** LIST of cross-queue flow signals, `flow:outbox`. */
  readonly flowOutbox: string;
  /** [TS] ZSET of live worker ids, score = the server time their registry entry lapses (`getWorkers`). */
  readonly workers: string;
  /** [TS] HASH worker id → its description (JSON: name, host, pid, concurrency, active, started), `workers:info`. */
  readonly workersInfo: string;
  /** [TS] HASH group → the lane's rate limit and its current window, `max:durationMs[:windowEnd:used]`. */
  readonly grate: string;
  /**
   * [TS] SET of the ids of parents held in `awaiting_children` (flow parents and step jobs waiting on
   * children they added), kept by every script that moves a parent in or out of that state, so the
   * count is one SCARD.
   */
  readonly waitingChildren: string;
  /**
   * [TS] ZSET of retained completed job ids, score = finish time (ms). Empty unless the queue's
   * retention keeps completed jobs.
   */
  readonly completed: string;
  /** [TS] ZSET of dead job ids, score = finish time (ms): what failed retention trims and `clean` ages by. */
  readonly deadAt: string;
  /**
   * [TS] STREAM `journal`: the durable twin of the events channel, written by the scripts that
   * publish when the queue's journal is on (meta `journal` = its MAXLEN ~ bound).
   */
  readonly journal: string;
  /**
   * [TS] STREAM `outcomes`: the recent completions of a queue that keeps no completed row, one
   * entry per completing call (`jobs <n>`, then `<id> <token>[:<result>]` per job; read with
   * `parseOutcomesEntry`), trimmed to about the last 1000 completions by the completing scripts, so
   * `waitUntilFinished` called after a fast job finished still finds its verdict.
   */
  readonly outcomes: string;
  /**
   * [TS] ZSET `expired`: the jobs a claim met past their deadline (row field `expire_at`), settled
   * as `expired` instead of leased, scored by finish time and trimmed by the failed retention.
   */
  readonly expired: string;
  /** HASH `metrics:completed`. */
  readonly metricsCompleted: string;
  /** HASH `metrics:failed`. */
  readonly metricsFailed: string;
  /** LIST `metrics:completed:data`, reserved and never written. */
  readonly metricsCompletedData: string;
  /** LIST `metrics:failed:data`, reserved and never written. */
  readonly metricsFailedData: string;
  /** The lifecycle pub/sub channel `emq:{q}:events`; a channel, not a key, but it shares the slot. */
  readonly events: string;
  /** `emq:{q}:job:`, the root scripts concatenate a checked id onto (JR). */
  readonly jobRoot: string;
  /** `emq:{q}:g:`, the root scripts concatenate a checked group id onto (GR). */
  readonly laneRoot: string;
  /** [TS] `emq:{q}:de:`, the root scripts concatenate a checked idempotency key onto (DR). */
  readonly dedupRoot: string;
  /** The row `job:<id>`. @throws MalformedIdError for a bad id. */
  readonly job: (id: BrandedId) => string;
  /** A job subkey `job:<id>:<sub>`. @throws MalformedIdError for a bad id, InvalidArgumentError for a bad sub. */
  readonly jobSub: (id: BrandedId, sub: JobSub) => string;
  /** A group's lane `g:<gid>:pending`. @throws MalformedIdError for a bad group id. */
  readonly lane: (group: BrandedId) => string;
  /** The idempotency key `de:<did>`. @throws InvalidNameError for a bad dedup id. */
  readonly dedup: (dedupId: string) => string;
  /** A repeat record `repeat:<name>`. @throws InvalidNameError for a bad repeat name. */
  readonly repeatRecord: (name: string) => string;
  /** A stream `stream:<name>`. @throws InvalidNameError for a bad stream name. */
  readonly stream: (name: string) => string;
  /** A stream's archive watermark `stream:<name>:archived`. @throws InvalidNameError for a bad stream name. */
  readonly archived: (name: string) => string;
  /**
   * [TS] A stream's dead-letter stream `stream:<name>:dead`: entries its consumer groups gave up on,
   * each with its reason, attempts and original id. @throws InvalidNameError for a bad stream name.
   */
  readonly deadLetters: (name: string) => string;
  /**
   * [TS] A stream's state beside the log, `stream:<name>:<part>` (see {@link STREAM_PARTS}): its
   * publish-dedup window (`msgids`, `msgids:until`), its per-key order registry (`order`) and its
   * paused groups (`paused`). @throws InvalidNameError for a bad stream name.
   */
  readonly streamPart: (name: string, part: StreamPart) => string;
}

/**
 * Builds the keys of queue `q`. The queue name is the hashtag, so every key here lands in one slot.
 *
 * @throws InvalidNameError when `q` is not a valid queue name.
 */
export function queueKeys(q: string): QueueKeys {
  assertQueueName(q);
  const base = `emq:{${q}}:`;
  const jobRoot = `${base}job:`;
  const laneRoot = `${base}g:`;
  return Object.freeze({
    queue: q,
    base,
    pending: `${base}pending`,
    active: `${base}active`,
    schedule: `${base}schedule`,
    dead: `${base}dead`,
    meta: `${base}meta`,
    limiter: `${base}limiter`,
    ring: `${base}ring`,
    wake: `${base}wake`,
    paused: `${base}paused`,
    gactive: `${base}gactive`,
    glimit: `${base}glimit`,
    gweight: `${base}gweight`,
    repeat: `${base}repeat`,
    flowOutbox: `${base}flow:outbox`,
    workers: `${base}workers`,
    workersInfo: `${base}workers:info`,
    grate: `${base}grate`,
    waitingChildren: `${base}waiting-children`,
    completed: `${base}completed`,
    deadAt: `${base}dead:at`,
    journal: `${base}journal`,
    outcomes: `${base}outcomes`,
    expired: `${base}expired`,
    metricsCompleted: `${base}metrics:completed`,
    metricsFailed: `${base}metrics:failed`,
    metricsCompletedData: `${base}metrics:completed:data`,
    metricsFailedData: `${base}metrics:failed:data`,
    events: `${base}events`,
    jobRoot,
    laneRoot,
    dedupRoot: `${base}de:`,
    job(id: BrandedId): string {
      assertBrandedId(id);
      return jobRoot + id;
    },
    jobSub(id: BrandedId, sub: JobSub): string {
      assertBrandedId(id);
      if (!isJobSub(sub)) throw new InvalidArgumentError('sub', `must be one of ${JOB_SUBS.join(', ')}, got ${JSON.stringify(describeValue(sub))}`);
      return `${jobRoot}${id}:${sub}`;
    },
    lane(group: BrandedId): string {
      assertBrandedId(group);
      return `${laneRoot}${group}:pending`;
    },
    dedup(dedupId: string): string {
      assertDedupId(dedupId);
      return `${base}de:${dedupId}`;
    },
    repeatRecord(name: string): string {
      assertRepeatName(name);
      return `${base}repeat:${name}`;
    },
    stream(name: string): string {
      assertStreamName(name);
      return `${base}stream:${name}`;
    },
    archived(name: string): string {
      assertStreamName(name);
      return `${base}stream:${name}:archived`;
    },
    deadLetters(name: string): string {
      assertStreamName(name);
      return `${base}stream:${name}:dead`;
    },
    streamPart(name: string, part: StreamPart): string {
      assertStreamName(name);
      return `${base}stream:${name}:${part}`;
    },
  });
}
