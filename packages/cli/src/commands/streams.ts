import type { StreamInfo } from '@echo/dashboard';
import { requireStream, type CommandContext } from '../context.js';
import { json, table } from '../format.js';

function maxLag(stream: StreamInfo): number | null {
  const lags = stream.groups.map((g) => g.lag);
  if (lags.length === 0 || lags.some((lag) => lag === undefined)) return null;
  return Math.max(...(lags as number[]));
}

/** `emq streams`: every stream log with its length, groups and the largest group lag. */
export async function streamsCommand(ctx: CommandContext): Promise<void> {
  const streams = await (await ctx.admin()).streams();
  if (ctx.json) ctx.io.out(json({ streams }));
  else if (streams.length === 0) ctx.io.out('no streams on this server\n');
  else ctx.io.out(table(['QUEUE', 'STREAM', 'LENGTH', 'GROUPS', 'MAX LAG', 'LAST ID'], streams.map((s) => [s.queue, s.name, s.length, s.groups.length, maxLag(s), s.lastId ?? null])));
}

/** `emq lag <queue> <stream>`: each consumer group's lag, pending entries and consumers. */
export async function lagCommand(ctx: CommandContext, queue: string, name: string): Promise<void> {
  const stream = await requireStream(await ctx.admin(), queue, name);
  if (ctx.json) ctx.io.out(json(stream));
  else if (stream.groups.length === 0) ctx.io.out(`${queue}/${name}: ${stream.length} entries, no consumer groups\n`);
  else ctx.io.out(table(['GROUP', 'LAG', 'PENDING', 'CONSUMERS', 'LAST DELIVERED'], stream.groups.map((g) => [g.name, g.lag ?? null, g.pending, g.consumers, g.lastDeliveredId])));
}
