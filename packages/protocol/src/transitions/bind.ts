import type { Arg } from '../connector/call-shape.js';
import type { ScriptCall } from '../connector/connection.js';
import { InvalidArgumentError } from '../errors/validation.js';
import type { Script } from '../scripts/script.js';
import { compileKeyShape, shapeOf, type KeyResolver, type KeyScope } from './key-shapes.js';

/** What {@link bind} reads: the scope the declared keys are built from, and the values by name. */
export interface BindInput {
  /** The queue, table, ids and names the header's key shapes name. */
  readonly scope: KeyScope;
  /** One value per `@arg` of the header, by its name; no more, no fewer. */
  readonly args?: Readonly<Record<string, Arg>>;
  /** Keys after the declared ones, for a header with `@keys` (flow rows, repeat records, …). */
  readonly restKeys?: readonly string[];
  /** Values after the declared ones, for a header with `@args`. */
  readonly restArgs?: readonly Arg[];
  /**
   * The trailing keys of one `@tail` layout, by name: bind places them in the order that layout's
   * line lists, so the order is written once, in the header. Refused with `restKeys` beside it.
   */
  readonly tail?: { readonly layout: string; readonly keys: Readonly<Record<string, string>> } | undefined;
  /**
   * Declare the optional trailing key of a header whose `@keys` reads `optional <shape>` (the wake
   * list of an admission, the schedule of a drain, …), built from the scope like the fixed ones.
   */
  readonly optional?: boolean;
}

interface Compiled {
  readonly resolvers: readonly KeyResolver[];
  readonly argNames: readonly string[];
  /** The resolver of an `@keys optional <shape>` slot. */
  readonly optional: KeyResolver | undefined;
}

function optionalResolver(script: Script): KeyResolver | undefined {
  const doc = script.header.restKeys?.doc.trim() ?? '';
  return doc.startsWith('optional ') ? compileKeyShape(shapeOf(doc.slice('optional '.length))) : undefined;
}

const compiled = new WeakMap<Script, Compiled>();

function compile(script: Script): Compiled {
  let c = compiled.get(script);
  if (c === undefined) {
    c = {
      resolvers: script.header.keys.map((slot) => compileKeyShape(shapeOf(slot.doc))),
      argNames: script.header.args.map((slot) => slot.name),
      optional: optionalResolver(script),
    };
    compiled.set(script, c);
  }
  return c;
}

/**
 * Builds a script call from its header: `KEYS` in the order the `@key` lines declare them, each
 * made by the keyspace builder its shape names, then `ARGV` in the order of the `@arg` lines. The
 * header is therefore the one place the order is written; a caller names values, never positions.
 *
 * @throws InvalidArgumentError for a missing or unknown argument name, a scope value a shape needs
 * and was not given, or trailing keys/values the header does not admit; the keyspace builders'
 * errors (MalformedIdError, InvalidNameError) for a bad id or name.
 */
export function bind(script: Script, input: BindInput): ScriptCall {
  const { resolvers, argNames, optional } = compile(script);
  const keys = resolvers.map((resolve) => resolve(input.scope));
  if (input.optional) {
    if (optional === undefined) throw new InvalidArgumentError('keys', `${script.name} declares no optional key`);
    keys.push(optional(input.scope));
  }
  const named = input.args ?? {};
  const args: Arg[] = [];
  for (const name of argNames) {
    const value = named[name];
    if (value === undefined) throw new InvalidArgumentError(name, `is an argument of ${script.name} and was not given`);
    args.push(value);
  }
  if (Object.keys(named).length !== argNames.length) {
    const unknown = Object.keys(named).filter((name) => !argNames.includes(name));
    throw new InvalidArgumentError(unknown[0] ?? 'args', `is not an argument of ${script.name}`);
  }
  if (input.tail !== undefined) {
    if (input.restKeys !== undefined) throw new InvalidArgumentError('tail', `${script.name}: give trailing keys as a tail or as restKeys, not both`);
    keys.push(...tailKeys(script, input.tail));
  }
  if (input.restKeys !== undefined && input.restKeys.length > 0) {
    if (script.header.restKeys === undefined) throw new InvalidArgumentError('keys', `${script.name} declares no trailing keys`);
    keys.push(...input.restKeys);
  }
  if (input.restArgs !== undefined && input.restArgs.length > 0) {
    if (script.header.restArgs === undefined) throw new InvalidArgumentError('args', `${script.name} takes no trailing arguments`);
    args.push(...input.restArgs);
  }
  return { script, keys, args };
}

/** The keys of one `@tail` layout in the header's order, each given by name; none missing, none extra. */
function tailKeys(script: Script, tail: NonNullable<BindInput['tail']>): string[] {
  const layout = script.header.tails.find((t) => t.layout === tail.layout);
  if (layout === undefined) throw new InvalidArgumentError('tail', `${script.name} declares no @tail ${tail.layout}`);
  const unknown = Object.keys(tail.keys).find((name) => !layout.names.includes(name));
  if (unknown !== undefined) throw new InvalidArgumentError(unknown, `is not a key of ${script.name}'s @tail ${tail.layout}`);
  return layout.names.map((name) => {
    const key = tail.keys[name];
    if (key === undefined) throw new InvalidArgumentError(name, `is a key of ${script.name}'s @tail ${tail.layout} and was not given`);
    return key;
  });
}
