import { InvalidArgumentError } from '../errors/validation.js';
import { MalformedReplyError } from '../errors/wire.js';
import { read, type Read } from './read.js';
import { text } from '../reply-shapes.js';

/** One client connection, as a line of `CLIENT LIST` describes it. */
export interface ClientInfo {
  /** The server's id for the connection. */
  readonly id: string;
  /** Its `CLIENT SETNAME`, `''` when it has none. */
  readonly name: string;
  /** Every `key=value` of the line, as text (`addr`, `db`, `cmd`, …). */
  readonly fields: Readonly<Record<string, string>>;
}

/** Client kinds `CLIENT LIST TYPE` filters on. */
export type ClientType = 'normal' | 'master' | 'replica' | 'pubsub';

const TYPES = new Set<string>(['normal', 'master', 'replica', 'pubsub']);

/** Parses a `CLIENT LIST` reply: one line per connection, each `key=value` separated by spaces. */
export function parseClientList(reply: unknown): ClientInfo[] {
  const clients: ClientInfo[] = [];
  for (const line of text('CLIENT LIST', reply).split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const pairs: [string, string][] = [];
    for (const part of trimmed.split(' ')) {
      const eq = part.indexOf('=');
      if (eq <= 0) throw new MalformedReplyError('CLIENT LIST', reply, `not key=value: ${JSON.stringify(part)}`);
      pairs.push([part.slice(0, eq), part.slice(eq + 1)]);
    }
    const fields: Record<string, string> = Object.fromEntries(pairs);
    const id = fields.id;
    if (id === undefined || !/^\d+$/.test(id)) throw new MalformedReplyError('CLIENT LIST', reply, 'a line without id=');
    clients.push({ id, name: fields.name ?? '', fields });
  }
  return clients;
}

/** `CLIENT LIST [TYPE type]`: the connections of one server (send it to each master of a cluster). */
export function clientList(input: { readonly type?: ClientType } = {}): Read<ClientInfo[]> {
  if (input.type !== undefined && !TYPES.has(input.type)) throw new InvalidArgumentError('type', `must be one of ${[...TYPES].join(', ')}`);
  return read('CLIENT LIST', input.type === undefined ? [] : ['TYPE', input.type], parseClientList);
}
