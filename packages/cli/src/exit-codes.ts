import {
  AuthError,
  ClusterUnavailableError,
  ConnectError,
  ConnectionLostError,
  EchoError,
  GoneError,
  InvalidArgumentError,
  InvalidNameError,
  MalformedIdError,
  UnknownStateError,
} from '@echo/protocol';

/** The exit statuses of `emq`, stable for scripts. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The server refused the operation or failed (a typed Echo error: wrong state, locked, permission). */
  failed: 1,
  /** Bad command line or input: unknown command or option, bad queue name, malformed id. */
  usage: 2,
  /** The queue, job or stream does not exist. */
  notFound: 3,
  /** The server could not be reached or authenticated. */
  unavailable: 4,
  /** Stopped by Ctrl-C (SIGINT) or SIGTERM before it finished; 128 + SIGINT, as a shell reports it. */
  interrupted: 130,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A usage error the CLI raises itself (a missing flag, a bad number). */
export class UsageError extends EchoError {
  constructor(message: string) {
    super('usage', message);
  }
}

/** A queue or stream with no keys on the server. */
export class NotFoundError extends EchoError {
  constructor(message: string) {
    super('not_found', message);
  }
}

/** The command was stopped by Ctrl-C or SIGTERM before it finished. */
export class InterruptedError extends EchoError {
  constructor() {
    super('interrupted', 'interrupted');
  }
}

/** Some jobs of a selection were refused (each is listed in the output): exit status 1. */
export class SelectionError extends EchoError {
  constructor(message: string) {
    super('selection', message);
  }
}

/** The exit status for an error thrown by a command. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof Error && error.name === 'CACError') return EXIT.usage;
  if (error instanceof UsageError || error instanceof InvalidArgumentError || error instanceof InvalidNameError || error instanceof MalformedIdError || error instanceof UnknownStateError) return EXIT.usage;
  if (error instanceof GoneError || error instanceof NotFoundError) return EXIT.notFound;
  if (error instanceof InterruptedError) return EXIT.interrupted;
  if (error instanceof ConnectError || error instanceof AuthError || error instanceof ConnectionLostError || error instanceof ClusterUnavailableError) return EXIT.unavailable;
  return EXIT.failed;
}
