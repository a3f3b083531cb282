import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';
import { count, flag, ok, text } from '../reply-shapes.js';
import { textArg } from '../reads/args.js';
import { isStreamId } from '../reads/stream-ids.js';
import { write, type Write } from './write.js';

/*
 * The plain stream writes: appends, acknowledgements, consumer groups and trims, each a pure
 * builder paired with the parser of its reply.
 */

function streamId(name: string, value: string): string {
  if (!isStreamId(value)) throw new InvalidArgumentError(name, `must be "<ms>-<seq>", got ${JSON.stringify(value)}`);
  return value;
}

/** A group position: `$` (the end), `0` (the head) or an id. */
function position(value: string): string {
  if (value === '$' || value === '0' || isStreamId(value)) return value;
  throw new InvalidArgumentError('id', `must be "$", "0" or "<ms>-<seq>", got ${JSON.stringify(value)}`);
}

function fieldList(fields: readonly string[]): readonly string[] {
  // Checked at run time too: JavaScript callers are not held to the type.
  const value: unknown = fields;
  if (!Array.isArray(value) || fields.length === 0 || fields.length % 2 !== 0) throw new InvalidArgumentError('fields', 'must be a non-empty flat field/value list');
  return fields;
}

/** Reads the id an `XADD` answers. */
export function parseXaddReply(reply: unknown): string {
  const id = text('XADD', reply);
  if (!isStreamId(id)) throw new MalformedReplyError('XADD', reply, 'not an id <ms>-<seq>');
  return id;
}

/** What an `XADD` appends. */
export interface XaddInput {
  /** The stream key. */
  readonly key: string;
  /** The entry id, or `*` for the server to mint one. */
  readonly id: string;
  /** `field value …`, at least one pair. */
  readonly fields: readonly string[];
}

/** `XADD key id field value …`: appends one entry; answers its id. */
export function xadd(input: XaddInput): Write<string> {
  const id = input.id === '*' ? '*' : streamId('id', input.id);
  return write('XADD', [textArg('key', input.key), id, ...fieldList(input.fields)], parseXaddReply);
}

/** `XACK key group id …`: acknowledges entries of a group; answers how many were pending. */
export function xack(input: { readonly key: string; readonly group: string; readonly ids: readonly string[] }): Write<number> {
  if (input.ids.length === 0) throw new InvalidArgumentError('ids', 'must name at least one entry');
  for (const id of input.ids) streamId('ids', id);
  return write('XACK', [textArg('key', input.key), textArg('group', input.group), ...input.ids], (reply) => count('XACK', reply));
}

/** Which group an `XGROUP CREATE` makes, and where it starts. */
export interface GroupCreateInput {
  /** The stream key. */
  readonly key: string;
  /** The group's name. */
  readonly group: string;
  /** Its last-delivered id: `$` (only entries appended later), `0` (the whole stream) or an id. */
  readonly id: string;
  /** Creates an empty stream when there is none (`MKSTREAM`). */
  readonly mkstream?: boolean;
}

/**
 * `XGROUP CREATE key group id [MKSTREAM]`. The server refuses a group that already exists with a
 * `BUSYGROUP` error, which the caller decides about.
 */
export function xgroupCreate(input: GroupCreateInput): Write<void> {
  const args = [textArg('key', input.key), textArg('group', input.group), position(input.id)];
  if (input.mkstream === true) args.push('MKSTREAM');
  return write('XGROUP CREATE', args, (reply) => ok('XGROUP CREATE', reply));
}

/** `XGROUP SETID key group id`: moves a group's last-delivered id. `NOGROUP` when there is no such group. */
export function xgroupSetid(input: { readonly key: string; readonly group: string; readonly id: string }): Write<void> {
  return write('XGROUP SETID', [textArg('key', input.key), textArg('group', input.group), position(input.id)], (reply) => ok('XGROUP SETID', reply));
}

/** `XGROUP DESTROY key group`: deletes a group with its pending list; answers whether there was one. */
export function xgroupDestroy(input: { readonly key: string; readonly group: string }): Write<boolean> {
  return write('XGROUP DESTROY', [textArg('key', input.key), textArg('group', input.group)], (reply) => flag('XGROUP DESTROY', reply));
}

/** How much of a stream an `XTRIM` keeps: the `maxlen` newest entries, or those at or above `minid`. */
export type XtrimInput = { readonly key: string; readonly approx: boolean } & ({ readonly maxlen: number } | { readonly minid: string });

/** `XTRIM key MAXLEN|MINID ~|= threshold`: answers how many entries it removed. */
export function xtrim(input: XtrimInput): Write<number> {
  const mode = input.approx ? '~' : '=';
  const key = textArg('key', input.key);
  let args: string[];
  if ('maxlen' in input) {
    if (!Number.isSafeInteger(input.maxlen) || input.maxlen < 0) throw new InvalidArgumentError('maxlen', `must be an integer >= 0, got ${String(input.maxlen)}`);
    args = [key, 'MAXLEN', mode, String(input.maxlen)];
  } else args = [key, 'MINID', mode, streamId('minid', input.minid)];
  return write('XTRIM', args, (reply) => count('XTRIM', reply));
}
