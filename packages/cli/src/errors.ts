/** The errors `emq` raises itself, and the exit status of any error a command throws. */
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

import { EXIT, type ExitCode } from './exit-codes.js';

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
