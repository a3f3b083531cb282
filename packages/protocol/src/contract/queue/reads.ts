/**
 * The queue's typed reads, as `@echo/protocol/queue` exposes them (`reads`): the queue's own builders
 * (`reads.queue.*`, the wake read among them) and the senders. What this module reaches is what the
 * queue may send outside its scripts: the ACL generator (scripts/gen-acl.ts) follows it, so a builder
 * added here widens the queue's rules and no other pillar's. The read factory (`read(command, …)`)
 * is not here: a pillar sends the builders it is given, never a command by name.
 */
export { sendRead, sendReads, type Read, type ReadSettled, type ReadsSettled, type ReadTarget } from '../../reads/read.js';
export * as queue from '../../reads/queue/index.js';
