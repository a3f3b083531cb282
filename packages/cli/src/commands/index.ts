/**
 * Every command's code, and the flag parsing, errors and connection it needs, in one module `main`
 * imports on first use: `emq --help`, `--version` and a usage error load none of it (nor the
 * pillars, the dashboard's web server or the Redis driver behind it), so they answer in the time
 * Node takes to start.
 */
export { dashboardCommand } from './dashboard.js';
export { jobCommand, jobsCommand, listState } from './jobs.js';
export { dlqCommand, minutesCommand, redriveCommand, schedulersCommand, searchCommand } from './operator.js';
export { queuesCommand, statsCommand, watchCommand } from './queues.js';
export { lagCommand, streamsCommand } from './streams.js';
export { controlCommand, drainCommand, retryCommand } from './writes.js';
export { Admin } from '@echo/dashboard';
export { connectOptions } from '../connect-options.js';
export { exitCodeOf, InterruptedError, UsageError } from '../errors.js';
export { intFlag } from '../flags.js';
