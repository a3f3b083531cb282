/**
 * `@echo/cli`: the `emq` command. {@link main} runs it in-process with your own IO, as the binary
 * and the tests do.
 *
 * @packageDocumentation
 */
export { main } from './main.js';
export { NotFoundError, UsageError, exitCodeOf } from './errors.js';
export { EXIT, type ExitCode } from './exit-codes.js';
export { processIo, type CliIo } from './io.js';
