import {
  ClusterUnavailableError,
  ConnectionClosedError,
  ConnectionLostError,
  EchoError,
  GoneError,
  InvalidArgumentError,
  InvalidNameError,
  LockedError,
  MalformedIdError,
  PermissionError,
  StateError,
  UnknownStateError,
} from '@echo/protocol';

/** The HTTP status an error answers with, and the JSON body the UI shows. */
export interface ErrorReply {
  readonly status: 400 | 403 | 404 | 409 | 500 | 503;
  readonly body: { readonly error: string; readonly message: string };
}

function statusOf(error: EchoError): ErrorReply['status'] {
  if (error instanceof GoneError) return 404;
  if (error instanceof InvalidArgumentError || error instanceof InvalidNameError || error instanceof MalformedIdError || error instanceof UnknownStateError) return 400;
  if (error instanceof StateError || error instanceof LockedError) return 409;
  if (error instanceof PermissionError) return 403;
  if (error instanceof ConnectionLostError || error instanceof ConnectionClosedError || error instanceof ClusterUnavailableError) return 503;
  return 500;
}

/** Maps a typed error to its status; anything else is a 500 that names no internals. */
export function errorReply(error: unknown): ErrorReply {
  if (error instanceof EchoError) return { status: statusOf(error), body: { error: error.name, message: error.message } };
  return { status: 500, body: { error: 'InternalError', message: 'the dashboard failed to answer; see the server log' } };
}
