import { EchoError } from './echo-error.js';

/** Which grammar a refused name was checked against. */
export type NameKind = 'queue' | 'dedup id' | 'repeat name' | 'stream name' | 'cache table';

/**
 * A queue, stream, repeat, dedup or table name broke its grammar (protocol.md §1). Thrown before any
 * key is built, so a bad name never reaches the server.
 */
export class InvalidNameError extends EchoError {
  readonly kind: NameKind;
  readonly value: string;

  constructor(kind: NameKind, value: string, rule: string) {
    super('invalid_name', `invalid ${kind} ${JSON.stringify(value)}: ${rule}`);
    this.kind = kind;
    this.value = value;
  }
}

/** A string is not a 14-byte branded id (protocol.md §4.2). */
export class MalformedIdError extends EchoError {
  readonly value: string;

  constructor(value: string, reason: string) {
    super('malformed_id', `malformed branded id ${JSON.stringify(value)}: ${reason}`);
    this.value = value;
  }
}

/** An option or argument is out of its documented range; nothing was sent. */
export class InvalidArgumentError extends EchoError {
  readonly argument: string;

  constructor(argument: string, rule: string) {
    super('invalid_argument', `invalid ${argument}: ${rule}`);
    this.argument = argument;
  }
}

/** A count names a state outside the closed set (queue.md §9.1). */
export class UnknownStateError extends EchoError {
  readonly state: string;
  /** The name to use instead, when the refused one is a known name from the spec or a peer. */
  readonly hint: string | undefined;

  constructor(state: string, hint?: string) {
    super('unknown_state', hint === undefined ? `unknown state ${JSON.stringify(state)}` : `unknown state ${JSON.stringify(state)}; ${hint}`);
    this.state = state;
    this.hint = hint;
  }
}

/** A payload could not be encoded or decoded by the configured codec. */
export class CodecError extends EchoError {
  constructor(message: string, options?: ErrorOptions) {
    super('codec', message, options);
  }
}
