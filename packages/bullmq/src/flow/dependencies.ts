import { InvalidArgumentError, strictOptions } from '@echo/protocol/queue';
import { decodeResult, type Queue as EchoQueue } from '@echo/queue';
import { openEnvelope, type Envelope } from '../envelope.js';
import { recordOfJobId } from '../job-lookup.js';
import { openBeside } from './open-beside.js';
import { qualifiedNameOf } from '../ids.js';
import { failedReasonOf } from './child-failure.js';
import { keyOfChild } from './child-keys.js';

/** A flow parent's children by how they ended, keyed BullMQ's way (`bull:<queue>:<id>`). */
export interface Dependencies {
  /** Completed children and their return values. */
  readonly processed: Record<string, unknown>;
  /** Children still open. */
  readonly unprocessed: string[];
  /** Children whose failure the parent ignored, and their failure texts. */
  readonly ignored: Record<string, string>;
  /** Children that failed the parent. */
  readonly failed: string[];
}

/** One page of one kind of children: from `cursor` (default 0), at most `count` (default 20). */
export interface DependencyPage {
  /** Where to start: 0, or the next cursor a page before answered. */
  readonly cursor?: number;
  /** At most this many children. */
  readonly count?: number;
}

/** `job.getDependencies(opts)`'s options: the kinds to read, each by page. */
export interface DependenciesOpts {
  /** Completed children, with their values. */
  readonly processed?: DependencyPage;
  /** Children still open. */
  readonly unprocessed?: DependencyPage;
  /** Children whose failure the parent ignored. */
  readonly ignored?: DependencyPage;
  /** Children that failed the parent. */
  readonly failed?: DependencyPage;
}

/** The pages asked for, each with the cursor of its next page (0 when it was the last). */
export interface DependencyPages {
  /** A page of completed children and their values. */
  readonly processed?: Record<string, unknown>;
  /** Where the next page of completed children starts; 0 when none is left. */
  readonly nextProcessedCursor?: number;
  /** A page of open children. */
  readonly unprocessed?: string[];
  /** Where the next page of open children starts; 0 when none is left. */
  readonly nextUnprocessedCursor?: number;
  /** A page of ignored failures. */
  readonly ignored?: Record<string, string>;
  /** Where the next page of ignored failures starts; 0 when none is left. */
  readonly nextIgnoredCursor?: number;
  /** A page of children that failed the parent. */
  readonly failed?: string[];
  /** Where the next page of those starts; 0 when none is left. */
  readonly nextFailedCursor?: number;
}

const checkPages = strictOptions('getDependencies options', { known: ['processed', 'unprocessed', 'ignored', 'failed'] });
const checkPage = strictOptions('getDependencies page', { known: ['cursor', 'count'] });

/**
 * BullMQ's `getDependencies(opts)`: without kinds, every child by how it ended; with kinds, a page of
 * each kind asked and the cursor of its next page (an offset here; 0 when none is left).
 */
export async function dependencyPages(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope, opts: DependenciesOpts): Promise<Dependencies | DependencyPages> {
  checkPages(opts);
  const all = await dependencies(queue, echoId, envelope);
  const kinds = (['processed', 'unprocessed', 'ignored', 'failed'] as const).filter((kind) => opts[kind] !== undefined);
  if (kinds.length === 0) return all;
  const out: Record<string, unknown> = {};
  for (const kind of kinds) {
    const page = opts[kind] ?? {};
    checkPage(page);
    const cursor = page.cursor ?? 0;
    const count = page.count ?? 20;
    if (!Number.isSafeInteger(cursor) || cursor < 0) throw new InvalidArgumentError(`${kind}.cursor`, 'must be an integer >= 0');
    if (!Number.isSafeInteger(count) || count < 1) throw new InvalidArgumentError(`${kind}.count`, 'must be an integer >= 1');
    const value = all[kind];
    const entries = Array.isArray(value) ? value : Object.entries(value);
    const slice = entries.slice(cursor, cursor + count);
    out[kind] = Array.isArray(value) ? slice : Object.fromEntries(slice as [string, unknown][]);
    out[`next${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)}Cursor`] = cursor + count < entries.length ? cursor + count : 0;
  }
  return out;
}

/** The counts of {@link Dependencies}, for the kinds asked (all four when none is). */
export interface DependencyCounts {
  /** Completed children. */
  readonly processed?: number;
  /** Children still open. */
  readonly unprocessed?: number;
  /** Children whose failure the parent ignored. */
  readonly ignored?: number;
  /** Children that failed the parent. */
  readonly failed?: number;
}

/** The children's return values, decoded, keyed BullMQ's way. */
export async function childrenValues(queue: EchoQueue<Envelope>, echoId: string, given: Envelope, raw?: Record<string, string>): Promise<Record<string, unknown>> {
  const [values, envelope] = await Promise.all([raw ?? queue.childrenValues(echoId), storedEnvelope(queue, echoId, given)]);
  const out: Record<string, unknown> = {};
  for (const [child, text] of Object.entries(values)) out[keyOfChild(queue.name, envelope, child)] = decodeResult(text);
  return out;
}

/**
 * The failures of children the parent ignored (`ignoreDependencyOnFailure`), keyed BullMQ's way;
 * with `forgotten`, also those whose failure removed the dependency (`removeDependencyOnFailure`),
 * which BullMQ lists nowhere.
 */
export async function ignoredFailures(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope, forgotten = false): Promise<Record<string, string>> {
  const raw = await queue.ignoredFailures(echoId);
  const removed = new Set(envelope.f ?? []);
  const out: Record<string, string> = {};
  for (const [child, text] of Object.entries(raw)) {
    const key = keyOfChild(queue.name, envelope, child);
    if (forgotten || !removed.has(key)) out[key] = (await ownFailure(queue, key)) ?? failedReasonOf(queue.name, envelope, text);
  }
  return out;
}

/**
 * The failure a child died with, as BullMQ shows it: Echo records on the parent the text that
 * started the failure (a grandchild's, for a node its own child killed), BullMQ the child's own
 * reason (`child <key> failed`). Undefined when the child is gone.
 */
async function ownFailure(queue: EchoQueue<Envelope>, key: string): Promise<string | undefined> {
  const idAt = key.lastIndexOf(':');
  const queueAt = key.lastIndexOf(':', idAt - 1);
  const childQueue = await openBeside(queue)(key.slice(queueAt + 1, idAt), key.slice(0, queueAt));
  const record = await recordOfJobId(childQueue, key.slice(idAt + 1));
  if (record?.lastError === undefined) return undefined;
  return failedReasonOf(childQueue.name, openEnvelope(record.payload), record.lastError);
}

/**
 * A parent's children by how they ended. Echo keeps the completed and ignored ones on the parent;
 * the open ones are the children the flow recorded that are in neither, and a child that failed
 * the parent is one the parent died with (counted open by Echo).
 */
export async function dependencies(queue: EchoQueue<Envelope>, echoId: string, given: Envelope): Promise<Dependencies> {
  const envelope = await storedEnvelope(queue, echoId, given);
  const [processed, settled, state] = await Promise.all([childrenValues(queue, echoId, envelope), ignoredFailures(queue, echoId, envelope, true), queue.getState(echoId)]);
  const removed = new Set(envelope.f ?? []);
  const ignored = Object.fromEntries(Object.entries(settled).filter(([key]) => !removed.has(key)));
  const open = await stillLinked(queue, echoId, (envelope.k ?? []).filter((key) => !(key in processed) && !(key in settled)));
  const dead = state === 'dead';
  return { processed, ignored, unprocessed: dead ? [] : open, failed: dead ? open.slice(0, 1) : [] };
}

/**
 * The parent's envelope as stored, else `given` (the `Job`'s copy): children added under it since
 * that copy was read (the `parent` option) are listed only in the stored one.
 */
export async function storedEnvelope(queue: EchoQueue<Envelope>, echoId: string, given: Envelope): Promise<Envelope> {
  const record = await queue.getJob(echoId);
  return record === undefined ? given : openEnvelope(record.payload);
}

/**
 * The open children that still report to parent `echoId`: a child in the parent's queue that
 * `removeChildDependency` detached is no longer one (children elsewhere cannot be detached).
 */
async function stillLinked(queue: EchoQueue<Envelope>, echoId: string, keys: readonly string[]): Promise<string[]> {
  const local = `${qualifiedNameOf(queue.name)}:`;
  const linked = await Promise.all(
    keys.map(async (key) => {
      if (!key.startsWith(local) || key.slice(local.length).includes(':')) return true;
      const child = await queue.getJob(key.slice(local.length)).catch(() => undefined);
      return child === undefined || child.parent?.id === echoId;
    }),
  );
  return keys.filter((_, i) => linked[i]);
}

/** BullMQ's `getDependenciesCount`: the counts of the kinds asked (all four when none is). */
export async function dependencyCounts(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope, asked: { readonly [K in keyof DependencyCounts]?: boolean }): Promise<DependencyCounts> {
  const all = await dependencies(queue, echoId, envelope);
  const kinds = (['processed', 'unprocessed', 'ignored', 'failed'] as const).filter((kind) => asked[kind] === true);
  const out: { -readonly [K in keyof DependencyCounts]: number } = {};
  for (const kind of kinds.length === 0 ? (['processed', 'unprocessed', 'ignored', 'failed'] as const) : kinds) {
    const value = all[kind];
    out[kind] = Array.isArray(value) ? value.length : Object.keys(value).length;
  }
  return out;
}
