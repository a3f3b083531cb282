import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '@echo/protocol/queue';
import { BullMQInputError } from './errors.js';

/** What Echo's business keys admit: 1-255 characters of `A-Z a-z 0-9 . _ -`. */
const KEY_SAFE = /^[A-Za-z0-9._-]{1,255}$/;
/** Marks a key that is an encoding, so a plain id that happens to look like one never collides. */
const ENCODED = 'x-';
const HASHED = 'h-';

/**
 * The Echo business key that stands for a BullMQ job id. BullMQ ids are any string; Echo's keys are
 * a narrow alphabet, so an id outside it (or one starting with the markers) is carried as base64url,
 * and one too long for that as its SHA-256. The app never sees the key: the job's own id rides in
 * the payload envelope.
 */
export function keyOfJobId(id: string): string {
  if (KEY_SAFE.test(id) && !id.startsWith(ENCODED) && !id.startsWith(HASHED)) return id;
  const encoded = ENCODED + Buffer.from(id, 'utf8').toString('base64url');
  if (encoded.length <= 255) return encoded;
  return HASHED + createHash('sha256').update(id, 'utf8').digest('hex');
}

/** How many Echo-id → job-id pairs this process remembers for its event listeners. */
const REMEMBERED = 10_000;
const seen = new Map<string, string>();

/**
 * Remembers that the job Echo calls `echoId` is `jobId` to the application, so a `QueueEvents` in
 * this process names it right even after its row is gone (a completed job is deleted by default).
 */
export function rememberJobId(echoId: string, jobId: string): void {
  if (seen.size >= REMEMBERED) {
    const oldest = seen.keys().next();
    if (oldest.done !== true) seen.delete(oldest.value);
  }
  seen.set(echoId, jobId);
}

/** The application's id of a job this process added or ran with a custom id, if it remembers one. */
export function rememberedJobId(echoId: string): string | undefined {
  return seen.get(echoId);
}

/** BullMQ's default key prefix: a queue under it is Echo's queue of the same name. */
export const DEFAULT_PREFIX = 'bull';

/**
 * The Echo queue that stands for BullMQ queue `name` under `prefix`. BullMQ refuses an empty name
 * and a `:` in it (its key separator), with these texts. A prefix other than BullMQ's default keeps
 * its queues apart from the default's: it becomes part of the Echo queue's name.
 */
export function echoQueueName(name: unknown, prefix: unknown = DEFAULT_PREFIX): string {
  if (typeof name !== 'string' || name === '') throw new BullMQInputError('name', 'Queue name must be provided');
  if (name.includes(':')) throw new BullMQInputError('name', 'Queue name cannot contain :');
  if (typeof prefix !== 'string' || prefix === '') throw new InvalidArgumentError('prefix', 'must be a non-empty string');
  // `{bull}` is BullMQ's default with a cluster hash tag: the same queues. Characters outside
  // Echo's name alphabet travel as `_` and their hex code.
  const plain = prefix.replace(/[{}]/g, '');
  const echoName = plain === DEFAULT_PREFIX ? name : `${plain.replace(/[^A-Za-z0-9.-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}.${name}`;
  qualifiedNames.set(echoName, `${prefix}:${name}`);
  return echoName;
}

/** Echo queue name → BullMQ's qualified name (`<prefix>:<name>`), for every queue this process named. */
const qualifiedNames = new Map<string, string>();

/**
 * BullMQ's qualified name (`<prefix>:<name>`, the start of its job keys) of the Echo queue
 * `echoName`: as this process named it, else read under the default prefix.
 */
export function qualifiedNameOf(echoName: string): string {
  return qualifiedNames.get(echoName) ?? `${DEFAULT_PREFIX}:${echoName}`;
}

/**
 * `options` without its keys whose value is `undefined`. Frameworks that wrap BullMQ (such as
 * `@nestjs/bullmq`) spread every option they know, set or not (`telemetry: undefined`); BullMQ
 * reads those as absent, and so do the strict checks here.
 */
export function definedOnly<T extends object>(options: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (value !== undefined) out[key] = value;
  return out as T;
}
