import type { JobDetail } from '@echo/dashboard';
import { LIST_STATES, type ListState } from '@echo/queue';
import { requireQueue, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { clip, fields, json, table, when } from '../format.js';
import { attemptsText } from './operator.js';

/** Checks `--state`. */
export function listState(value: unknown): ListState {
  if (typeof value !== 'string' || !(LIST_STATES as readonly string[]).includes(value)) {
    throw new UsageError(`--state must be one of ${LIST_STATES.join(', ')}`);
  }
  return value as ListState;
}

/** `emq jobs <queue> --state <state>`: one page of a state's jobs, oldest (or soonest due) first. */
export async function jobsCommand(ctx: CommandContext, name: string, state: ListState, offset: number, limit: number): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const page = await admin.jobs(name, state, { offset, limit });
  if (ctx.json) {
    ctx.io.out(json(page));
    return;
  }
  if (page.jobs.length === 0) {
    ctx.io.out(page.total === 0 ? `no ${state} jobs in ${name}\n` : `no ${state} jobs at offset ${offset} (${page.total} in all)\n`);
    return;
  }
  const timed = state === 'scheduled' || state === 'active';
  const finished = state === 'completed' || state === 'failed' || state === 'dead';
  const headers = ['ID', 'NAME', 'ATTEMPTS', ...(timed ? [state === 'scheduled' ? 'RUN AT (UTC)' : 'LEASE UNTIL (UTC)'] : []), ...(finished ? ['FINISHED (UTC)'] : []), 'PAYLOAD', 'LAST ERROR'];
  const rows = page.jobs.map((j) => [j.id, j.name, j.attempts, ...(timed ? [when(j.at)] : []), ...(finished ? [when(j.finishedAt)] : []), clip(j.payload, 60), clip(j.lastError, 50)]);
  ctx.io.out(table(headers, rows));
  const last = offset + page.jobs.length;
  ctx.io.out(`${offset + 1}-${last} of ${page.total}${last < page.total ? `; next page: --offset ${last}` : ''}\n`);
}

function jobText(job: JobDetail): string {
  let payload = job.payload ?? '';
  try {
    payload = JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    // Not JSON: shown as stored.
  }
  const head = fields([
    ['id', job.id],
    ['name', job.name],
    ['key', job.key],
    ['position', job.position],
    ['finished', when(job.finishedAt)],
    ['scheduler', job.scheduler === null ? null : job.schedulerInfo === null ? `${job.scheduler} (removed since)` : `${job.scheduler} (${job.schedulerInfo.pattern}; next run ${when(job.schedulerInfo.next) ?? '-'} UTC)`],
    ['attempts', job.attempts],
    ['last error', job.lastError],
    ['progress', job.progress],
    ['stalled', job.stalled],
    ['lane', job.lane],
    ['result', job.result === null || typeof job.result === 'string' ? job.result : JSON.stringify(job.result)],
    ['parent', job.parent === null ? null : `${job.parent.queue}/${job.parent.id} (${job.parent.policy})`],
  ]);
  const logs = job.logs.length === 0 ? '(none)\n' : job.logs.map((line) => `  ${line}`).join('\n') + '\n';
  return `${head}attempt history:\n${attemptsText(job.history)}payload:\n${payload}\nlogs:\n${logs}`;
}

/** `emq job <queue> <id>`: one job with payload, error, attempts and logs. */
export async function jobCommand(ctx: CommandContext, name: string, id: string): Promise<void> {
  const admin = await ctx.admin();
  await requireQueue(admin, name);
  const job = await admin.job(name, id);
  ctx.io.out(ctx.json ? json(job) : jobText(job));
}
