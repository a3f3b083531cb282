import type { AttemptRecord } from '@echo/protocol/extend';
import { requireQueue, requireStream, type CommandContext } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';
import { clip, json, table, when } from '../format.js';

/** The attempt history as a table (or a line saying the queue does not record it). */
export function attemptsText(history: readonly AttemptRecord[]): string {
  if (history.length === 0) return '  (none recorded: the queue keeps them when asked, queue.setEvents({ history: 20 }))\n';
  const took = (ms: number | null): string | null => (ms === null ? null : `${String(ms)} ms`);
  return table(
    ['#', 'STARTED (UTC)', 'ENDED (UTC)', 'TOOK', 'OUTCOME', 'ERROR'],
    history.map((a) => [a.attempt, when(a.startedAt), when(a.endedAt), took(a.durationMs), a.outcome ?? 'running', clip(a.error, 70)]),
  )
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}

/** `emq search <queue> <text>`: jobs by id, business key (or dedup id) or name. */
export async function searchCommand(ctx: CommandContext, name: string, query: string): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const result = await admin.search(name, query);
  if (ctx.json) {
    ctx.io.out(json(result));
    return;
  }
  if (result.hits.length === 0) throw new NotFoundError(`no job of ${name} matches ${JSON.stringify(query)} by id, key or name${result.truncated ? ` (by name: the first ${String(result.scanned)} jobs read)` : ''}`);
  ctx.io.out(table(['ID', 'MATCH', 'STATE', 'NAME', 'KEY', 'ATTEMPTS', 'FINISHED (UTC)', 'LAST ERROR'], result.hits.map((h) => [h.job.id, h.match, h.job.position, h.job.name, h.job.key, h.job.attempts, when(h.job.finishedAt), clip(h.job.lastError, 50)])));
}

/** `emq schedulers <queue>`: each scheduler's pattern, next and last run. */
export async function schedulersCommand(ctx: CommandContext, name: string): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const schedulers = await admin.schedulers(name);
  if (ctx.json) ctx.io.out(json({ queue: name, schedulers }));
  else if (schedulers.length === 0) ctx.io.out(`no schedulers in ${name}\n`);
  else ctx.io.out(table(['ID', 'PATTERN', 'NEXT RUN (UTC)', 'LAST RUN (UTC)', 'LAST JOB', 'RUNS'], schedulers.map((s) => [s.id, s.pattern, when(s.next), when(s.lastRunAt), s.lastJob, s.count])));
}

/** `emq minutes <queue>`: completions and failed attempts per minute, the last `last` minutes. */
export async function minutesCommand(ctx: CommandContext, name: string, last: number): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const minutes = await admin.minutes(name, last);
  if (ctx.json) {
    ctx.io.out(json({ queue: name, minutes }));
    return;
  }
  const busy = minutes.filter((m) => m.completed > 0 || m.failed > 0);
  const failed = minutes.reduce((n, m) => n + m.failed, 0);
  const done = minutes.reduce((n, m) => n + m.completed, 0);
  ctx.io.out(`${name}: ${String(done)} completed, ${String(failed)} failed attempts in the last ${String(last)} minutes\n`);
  if (busy.length === 0) {
    ctx.io.out('(nothing counted: the queue counts per minute when asked, queue.setEvents({ minutes: 180 }))\n');
    return;
  }
  ctx.io.out(table(['MINUTE (UTC)', 'COMPLETED', 'FAILED'], busy.map((m) => [when(m.at)?.slice(0, 16), m.completed, m.failed])));
}

/** `emq dlq <queue> <stream>`: a stream's dead letters, oldest first. */
export async function dlqCommand(ctx: CommandContext, queue: string, stream: string, count: number, after: string | undefined): Promise<void> {
  const admin = await ctx.admin();
  await requireStream(admin, queue, stream);
  const letters = await admin.deadLetters(queue, stream, { count, ...(after === undefined ? {} : { after }) });
  if (ctx.json) ctx.io.out(json({ queue, stream, deadLetters: letters }));
  else if (letters.length === 0) ctx.io.out(`no dead letters in ${queue}/${stream}\n`);
  else {
    ctx.io.out(table(['ENTRY', 'GROUP', 'CONSUMER', 'DELIVERIES', 'DEAD AT (UTC)', 'REASON', 'PAYLOAD'], letters.map((d) => [d.id, d.group, d.consumer, d.attempts, when(d.deadAt), clip(d.reason, 40), clip(JSON.stringify(d.payload), 50)])));
    const last = letters.at(-1);
    if (letters.length === count && last !== undefined) ctx.io.out(`next page: --after ${last.record}\n`);
  }
}

/** `emq redrive <queue> <stream> [ids...] | --all`: dead letters back to their group. */
export async function redriveCommand(ctx: CommandContext, queue: string, stream: string, ids: readonly string[], all: boolean): Promise<void> {
  if ((ids.length === 0) === !all) throw new UsageError('give entry ids or --all, not both');
  const admin = await ctx.admin();
  await requireStream(admin, queue, stream);
  const result = await admin.redrive(queue, stream, all ? 'all' : ids);
  if (ctx.json) ctx.io.out(json({ ok: true, queue, stream, ...result }));
  else ctx.io.out(`redriven ${String(result.redriven)} dead letter(s) of ${queue}/${stream}${result.left > 0 ? `; ${String(result.left)} left (entry trimmed or group gone)` : ''}\n`);
}
