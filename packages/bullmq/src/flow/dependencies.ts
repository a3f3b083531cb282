import { decodeResult, type Queue as EchoQueue } from '@echo/queue';
import type { Envelope } from '../envelope.js';
import { qualifiedNameOf } from '../ids.js';

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

/**
 * The key BullMQ gives child `echoId` of a parent: the one the flow recorded in the parent's
 * envelope, else the child read as a job of the parent's own queue.
 */
function keyOfChild(parentQueue: string, children: readonly string[], echoId: string): string {
  return children.find((key) => key.endsWith(`:${echoId}`)) ?? `${qualifiedNameOf(parentQueue)}:${echoId}`;
}

/** The children's return values, decoded, keyed BullMQ's way. */
export async function childrenValues(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope, raw?: Record<string, string>): Promise<Record<string, unknown>> {
  const values = raw ?? (await queue.childrenValues(echoId));
  const out: Record<string, unknown> = {};
  for (const [child, text] of Object.entries(values)) out[keyOfChild(queue.name, envelope.k ?? [], child)] = decodeResult(text);
  return out;
}

/** The failures of children the parent ignored (`ignoreDependencyOnFailure`), keyed BullMQ's way. */
export async function ignoredFailures(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope): Promise<Record<string, string>> {
  const raw = await queue.ignoredFailures(echoId);
  const out: Record<string, string> = {};
  for (const [child, text] of Object.entries(raw)) out[keyOfChild(queue.name, envelope.k ?? [], child)] = firstLine(text);
  return out;
}

/**
 * A parent's children by how they ended. Echo keeps the completed and ignored ones on the parent;
 * the open ones are the children the flow recorded that are in neither, and a child that failed
 * the parent is one the parent died with (counted open by Echo).
 */
export async function dependencies(queue: EchoQueue<Envelope>, echoId: string, envelope: Envelope): Promise<Dependencies> {
  const [processed, ignored, state] = await Promise.all([childrenValues(queue, echoId, envelope), ignoredFailures(queue, echoId, envelope), queue.getState(echoId)]);
  const open = (envelope.k ?? []).filter((key) => !(key in processed) && !(key in ignored));
  const dead = state === 'dead';
  return { processed, ignored, unprocessed: dead ? [] : open, failed: dead ? open.slice(0, 1) : [] };
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

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}
