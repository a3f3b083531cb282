import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** The environment variable that names the server binary (a path or a command name on `PATH`). */
export const SERVER_BINARY_ENV = 'ECHO_REDIS_SERVER';

/**
 * Binaries tried on `PATH`, in order. `redis-server` comes first because it is the server the
 * toolchain pins (Debian's 7.0.x); Valkey speaks the same protocol and takes the same flags.
 */
export const SERVER_BINARY_NAMES: readonly string[] = ['redis-server', 'valkey-server'];

const INSTALL_HINT =
  'Install it with `apt-get install -y redis-server` (or brew/your package manager) ' +
  `or set ${SERVER_BINARY_ENV} to the binary path, or set REDIS_URL to use an existing server.`;

/**
 * Thrown when no Redis/Valkey server binary can be found. Its message always ends with the
 * install hint, so a contributor who runs the tests on a fresh machine knows the three ways out.
 */
export class RedisServerNotFoundError extends Error {
  /** Stable code to branch on (for example to skip a suite) without matching the message. */
  readonly code = 'ECHO_REDIS_SERVER_NOT_FOUND';
  /** Every candidate path that was examined, for the curious. */
  readonly searched: readonly string[];

  constructor(reason: string, searched: readonly string[]) {
    super(`${reason} ${INSTALL_HINT}`);
    this.name = 'RedisServerNotFoundError';
    this.searched = searched;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function searchPath(name: string, pathValue: string | undefined, searched: string[]): string | undefined {
  // An empty PATH entry means "current directory" to a shell; a test helper should not run
  // whatever binary happens to sit in the working directory, so those entries are skipped.
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    searched.push(candidate);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds the server binary to spawn: `ECHO_REDIS_SERVER` when set (an absolute/relative path, or a
 * command name looked up on `PATH`), else `redis-server`, else `valkey-server` on `PATH`.
 *
 * `PATH` is searched here rather than by shelling out to `which`, which is not installed on every
 * slim image and would cost a process per lookup.
 *
 * @param env - the environment to read; defaults to `process.env`, and exists so tests can probe
 *   the lookup without mutating the global environment.
 * @returns the absolute path of an executable file.
 * @throws {@link RedisServerNotFoundError} when nothing executable is found.
 */
export function findServerBinary(env: NodeJS.ProcessEnv = process.env): string {
  const searched: string[] = [];
  const override = env[SERVER_BINARY_ENV];
  if (override !== undefined && override !== '') {
    if (override.includes('/')) {
      const path = isAbsolute(override) ? override : resolve(override);
      searched.push(path);
      if (isExecutableFile(path)) return path;
      throw new RedisServerNotFoundError(`${SERVER_BINARY_ENV}=${override} is not an executable file.`, searched);
    }
    const found = searchPath(override, env.PATH, searched);
    if (found !== undefined) return found;
    throw new RedisServerNotFoundError(`${SERVER_BINARY_ENV}=${override} was not found on PATH.`, searched);
  }
  for (const name of SERVER_BINARY_NAMES) {
    const found = searchPath(name, env.PATH, searched);
    if (found !== undefined) return found;
  }
  throw new RedisServerNotFoundError(`No ${SERVER_BINARY_NAMES.join(' or ')} binary was found on PATH.`, searched);
}
