import { AuthError, ConnectError } from '../errors/connection.js';
import { deferred, type Deferred } from './deferred.js';
import type { ResolvedOptions } from './options.js';

const AUTH_FAILURE = /^(WRONGPASS|NOAUTH|NOPERM this user has no permissions to run the 'hello')/;

/** A gate that is already closed with `error`, for a connector that has stopped for good. */
export function rejected(error: Error): Deferred<undefined> {
  const gate = deferred<undefined>();
  gate.reject(error);
  return gate;
}

/** `NOSCRIPT` as the reply itself, or as the last error inside a driver's wrapper message. */
const NO_SCRIPT = /(?:^|: )NOSCRIPT\b/;

/**
 * The server does not have the script cached (a restart, a SCRIPT FLUSH, a promoted replica). The
 * cluster client may report it wrapped ("Too many Cluster redirections. Last error: ReplyError:
 * NOSCRIPT ..."), so it is recognised wherever it sits after a `: `.
 */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && NO_SCRIPT.test(error.message);
}

/** Credentials refused: retrying with the same ones cannot help, so it is fatal. */
export function isAuthFailure(error: unknown): boolean {
  return error instanceof Error && AUTH_FAILURE.test(error.message);
}

/** A first connect that failed, typed and naming where it tried. */
export function toConnectError(error: unknown, o: ResolvedOptions): Error {
  if (isAuthFailure(error)) return new AuthError((error as Error).message, { cause: error });
  const nodes = o.cluster ?? o.sentinel?.sentinels;
  const where = nodes ? nodes.map((n) => `${n.host}:${n.port}`).join(',') : `${o.host}:${o.port}`;
  const reason = error instanceof Error ? error.message : String(error);
  return new ConnectError(`cannot connect to ${where}: ${reason}`, { cause: error });
}
