import { InvalidArgumentError } from '../errors/validation.js';

/** One declared `KEYS[i]` or `ARGV[i]` slot as written in a script header. */
export interface HeaderSlot {
  /** Short name used in docs and errors, e.g. `row`. */
  readonly name: string;
  /** The text after the name: the key's shape or the value's meaning. */
  readonly doc: string;
}

/**
 * [TS] Names for the trailing keys under one of their layouts (`@tail sq parent_deps parent_row`):
 * when the caller sends the `layout` shape, `KEYS[n+1]`, `KEYS[n+2]`, ... (n fixed keys) are these.
 * The wire is the trailing list as before; the names only let the body say which key it means.
 */
export interface HeaderTail {
  /** The layout's word, as the script's mode argument or docs name it (`sq`, `xq`). */
  readonly layout: string;
  /** The trailing keys' names, in `KEYS` order. */
  readonly names: readonly string[];
}

/**
 * The machine-read header every `.lua` file starts with. It is the script's contract: which keys it
 * declares and in what order, which values it takes, what it returns and which error classes it
 * may raise. Tests hold every script to it; the connector uses it to check call shapes.
 */
export interface ScriptHeader {
  readonly name: string;
  readonly purpose: string;
  /** Fixed keys in order: `KEYS[1]` is `keys[0]`. */
  readonly keys: readonly HeaderSlot[];
  /** Present when further keys may follow the fixed ones (e.g. child rows of a flow). */
  readonly restKeys: HeaderSlot | undefined;
  /** Named layouts of the trailing keys, when the body reads them by position. */
  readonly tails: readonly HeaderTail[];
  /** Fixed arguments in order. */
  readonly args: readonly HeaderSlot[];
  /** Present when further arguments may follow the fixed ones. */
  readonly restArgs: HeaderSlot | undefined;
  /**
   * `@argtail`: the names of optional trailing arguments, in `ARGV` order from the first after the
   * fixed ones (a claim's marker TTL, then its ticket), so the body reads each by name.
   */
  readonly argTail: readonly string[];
  /** Library files (`lua/lib/<name>.lua`) prepended to the body, in this order. */
  readonly includes: readonly string[];
  readonly returns: string;
  /** Error class words the script may emit, each with its detail text. */
  readonly errors: readonly string[];
}

const TAG = /^--\s*@(\w+)\s*(.*)$/;

/**
 * Reads the `-- @tag value` lines at the top of a script. The header ends at the first line that is
 * not a comment; untagged comment lines continue the previous tag's text.
 */
export function parseHeader(source: string, origin: string): ScriptHeader {
  let name = '';
  let purpose = '';
  let returns = '';
  const keys: HeaderSlot[] = [];
  const args: HeaderSlot[] = [];
  const includes: string[] = [];
  const errors: string[] = [];
  const tails: HeaderTail[] = [];
  const argTail: string[] = [];
  let restKeys: HeaderSlot | undefined;
  let restArgs: HeaderSlot | undefined;
  let last: { append: (text: string) => void } | undefined;

  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('--')) break;
    const tagged = TAG.exec(line);
    if (!tagged) {
      const text = line.replace(/^--\s?/, '').trim();
      if (text !== '') last?.append(text);
      continue;
    }
    const tag = tagged[1] ?? '';
    const value = (tagged[2] ?? '').trim();
    switch (tag) {
      case 'script':
        name = value;
        last = undefined;
        break;
      case 'purpose':
        purpose = value;
        last = { append: (t) => (purpose += ` ${t}`) };
        break;
      case 'returns':
        returns = value;
        last = { append: (t) => (returns += ` ${t}`) };
        break;
      case 'error':
        errors.push(value);
        last = undefined;
        break;
      case 'tail': {
        const [layout, ...names] = value.split(/\s+/).filter((w) => w !== '');
        if (layout === undefined || names.length === 0) throw new InvalidArgumentError('script header', `${origin}: @tail needs a layout and names`);
        tails.push({ layout, names });
        last = undefined;
        break;
      }
      case 'argtail': {
        const names = value.split(/\s+/).filter((w) => w !== '');
        if (names.length === 0) throw new InvalidArgumentError('script header', `${origin}: @argtail needs names`);
        argTail.push(...names);
        last = undefined;
        break;
      }
      case 'include':
        includes.push(...value.split(/\s+/).filter((s) => s !== ''));
        last = undefined;
        break;
      case 'key':
      case 'arg':
      case 'keys':
      case 'args': {
        const slot = splitSlot(value, origin, tag);
        if (tag === 'key') keys.push(slot);
        else if (tag === 'arg') args.push(slot);
        else if (tag === 'keys') restKeys = slot;
        else restArgs = slot;
        last = undefined;
        break;
      }
      case 'lib':
        last = undefined;
        break;
      default:
        throw new InvalidArgumentError('script header', `${origin}: unknown tag @${tag}`);
    }
  }
  if (name === '') throw new InvalidArgumentError('script header', `${origin}: missing @script`);
  if (purpose === '') throw new InvalidArgumentError('script header', `${origin}: missing @purpose`);
  if (returns === '') throw new InvalidArgumentError('script header', `${origin}: missing @returns`);
  return { name, purpose, keys, restKeys, tails, args, restArgs, argTail, includes, returns, errors };
}

function splitSlot(value: string, origin: string, tag: string): HeaderSlot {
  const match = /^(\S+)\s*(.*)$/.exec(value);
  if (!match?.[1]) throw new InvalidArgumentError('script header', `${origin}: empty @${tag}`);
  return { name: match[1], doc: match[2] ?? '' };
}
