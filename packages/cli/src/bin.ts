#!/usr/bin/env node
/**
 * `emq`: look into and operate EchoMQ queues and streams. `emq --help` lists the commands; every
 * read takes `--json`; `REDIS_URL` or `--url` says where (`--cluster` or `ECHO_CLUSTER_SEEDS` for a
 * cluster). Exit status: 0 done, 1 refused or failed, 2 usage, 3 not found, 4 server unreachable,
 * 130 interrupted (Ctrl-C).
 */
import { EXIT } from './exit-codes.js';
import { processIo } from './io.js';
import { main } from './main.js';

const code = await main(process.argv.slice(2), processIo());
// An interrupted command leaves behind what cannot be cancelled (a connect in progress, a call
// waiting on the server): exit now rather than when it settles.
if (code === EXIT.interrupted) process.exit(code);
process.exitCode = code;
