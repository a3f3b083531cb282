#!/usr/bin/env node
/**
 * `emq`: look into and operate EchoMQ queues and streams. `emq --help` lists the commands; every
 * read takes `--json`; `REDIS_URL` or `--url` says where (`--cluster` or `ECHO_CLUSTER_SEEDS` for a
 * cluster). Exit status: 0 done, 1 refused or failed, 2 usage, 3 not found, 4 server unreachable.
 */
import { processIo } from './io.js';
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), processIo());
