/**
 * The exit statuses of `emq`. Nothing here imports the packages: `emq --help` and `--version` load
 * this module and the argument parser only (the errors, which need @echo/protocol, are in
 * errors.ts and load with the first command).
 */

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
