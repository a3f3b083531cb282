import { InvalidArgumentError } from '../errors/validation.js';
import { UnknownOptionError } from './strict.js';

/*
 * The `connection` / `connect` pair every pillar's open takes. `connection` shares an open
 * Connection; `connect` is where to open one. A plain `{ host, port }` under `connection` (BullMQ's
 * habit) would otherwise be taken as a Connection and fail later as `conn.command is not a function`.
 */

/** The methods every pillar calls on a shared connection; duck-typed, since two copies of the protocol may share a process. */
const CONNECTION_METHODS = ['command', 'run', 'duplicate', 'close'] as const;

const CONNECTION_HINT = "connection shares an open Connection here; give a URL or connection options (BullMQ's connection: { host, port }) as connect";

/** True for an object that answers the connection methods the pillars call. */
export function isConnectionLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return CONNECTION_METHODS.every((method) => typeof record[method] === 'function');
}

/**
 * Checks the `connection` / `connect` pair of an open's options (`where`, e.g. `Bus.open options`):
 * `connection`, when given, must be an open Connection, and at most one of the two may be given.
 * @throws UnknownOptionError (with the hint to use `connect`) for a `connection` that is not a
 *   Connection; InvalidArgumentError for both given.
 */
export function checkConnectionChoice(where: string, options: { readonly connection?: unknown; readonly connect?: unknown }): void {
  const { connection, connect } = options;
  if (connection !== undefined && !isConnectionLike(connection)) throw new UnknownOptionError(where, 'connection', CONNECTION_HINT, []);
  if (connection !== undefined && connect !== undefined) {
    throw new InvalidArgumentError(where, 'takes connection (an open Connection to share) or connect (a URL or options to open one), not both');
  }
}
