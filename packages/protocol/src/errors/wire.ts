import { EchoError } from './echo-error.js';

/**
 * A script replied with an `EMQ<CLASS> <detail>` error (protocol.md §9). Known classes have their own
 * subclass; an unknown class arrives as a plain `EmqError` so a newer server minor stays readable.
 */
export class EmqError extends EchoError {
  /** The class word as sent, e.g. `EMQSTALE`. */
  readonly errorClass: string;
  /** The text after the class word. */
  readonly detail: string;

  constructor(errorClass: string, detail: string) {
    super(errorClass.toLowerCase(), detail === '' ? errorClass : `${errorClass} ${detail}`);
    this.errorClass = errorClass;
    this.detail = detail;
  }
}

/** `EMQKIND`: an id of the wrong namespace was offered (also raised on the host before any I/O). */
export class KindError extends EmqError {
  constructor(detail: string) {
    super('EMQKIND', detail);
  }
}

/** `EMQSTALE`: the fencing token no longer matches, or the job left `active`. */
export class StaleError extends EmqError {
  constructor(detail: string) {
    super('EMQSTALE', detail);
  }
}

/** `EMQSTALE job gone`: the job's row no longer exists. */
export class GoneError extends EmqError {
  constructor(detail = 'job gone') {
    super('EMQSTALE', detail);
  }
}

/** `EMQSTATE`: a precondition on the queue or job state failed; nothing changed. */
export class StateError extends EmqError {
  constructor(detail: string) {
    super('EMQSTATE', detail);
  }
}

/** `EMQLOCK`: the job is held by a worker and cannot be removed. */
export class LockedError extends EmqError {
  constructor(detail: string) {
    super('EMQLOCK', detail);
  }
}

/** `EMQRATE`: the queue is at its concurrency ceiling. */
export class RateError extends EmqError {
  constructor(detail: string) {
    super('EMQRATE', detail);
  }
}

/** Any other error reply from the server (`ERR …`, `WRONGTYPE …`, `NOPERM …`). */
export class ServerError extends EchoError {
  constructor(message: string, options?: ErrorOptions, code = 'server') {
    super(code, message, options);
  }
}

/** XADD refused an id that is not above the stream's top item (bus.md §2.2). */
export class NonMonotonicError extends EchoError {
  constructor(message: string) {
    super('non_monotonic', message);
  }
}

/**
 * The server's ACL refused a command, key or channel to this connection's user (`NOPERM`). Nothing
 * ran; the user needs the grant named in the message (see the README's least-privilege ACL lines).
 */
export class PermissionError extends ServerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options, 'permission');
  }
}

/**
 * A reply did not have the shape its command answers (a stream read that is not a list of
 * `[id, fields]`, an `XINFO` without its map): a proxy, a newer server or damage. Raised by the
 * protocol's reply parsers instead of reading a wrong shape as data.
 */
export class MalformedReplyError extends ServerError {
  /** The command whose reply it was, e.g. `XREAD`. */
  readonly command: string;

  constructor(command: string, reply: unknown, detail = 'unexpected shape') {
    super(`malformed ${command} reply (${detail}): ${preview(reply)}`, undefined, 'malformed_reply');
    this.command = command;
  }
}

/** A short printable form of a reply for an error message (Buffers as text, long replies cut). */
function preview(reply: unknown): string {
  let text: string;
  try {
    // `undefined` (and functions) stringify to nothing.
    const json = JSON.stringify(reply, (_key, value: unknown) => (typeof value === 'object' && value !== null && 'type' in value && value.type === 'Buffer' ? '<buffer>' : value));
    text = typeof json === 'string' ? json : String(reply);
  } catch {
    text = String(reply);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
