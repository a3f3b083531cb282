import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { traces, type AppendTraceContext, type StreamProcessTraceContext } from '@echo/protocol/extend';
import { ATTR, SYSTEM } from './attributes.js';
import { Recent } from './recent.js';
import { errorText, on } from './trace-channel.js';
import { extractSpan, injectSpan } from './w3c.js';

function recordKey(queue: string, stream: string, id: string): string {
  return `${queue}\u0000${stream}\u0000${id}`;
}

/**
 * Stream spans. A producer span per append call (`<stream> send`), a child of the caller's active
 * context, written into the call's carrier: a stream opened with `traceContext: true` writes it
 * into each record. A consumer span per handler call (`<stream> process`), current while the
 * handler runs: for one entry, the child of the context read from the record (and linked to it),
 * or, when the record carries none, a root linked to the producer span of this process's memory;
 * for a batch handler, one root span linked to each entry's producer.
 */
export function streamTraceHooks(tracer: Tracer, produced: number): () => void {
  const sending = new WeakMap<AppendTraceContext, Span>();
  const running = new WeakMap<StreamProcessTraceContext, Span>();
  const records = new Recent<SpanContext>(produced);

  const producerOf = (ctx: StreamProcessTraceContext, entry: StreamProcessTraceContext['entries'][number]): { readonly span: SpanContext; readonly parent: boolean } | undefined => {
    const fromRecord = extractSpan(entry.trace);
    if (fromRecord) return { span: fromRecord, parent: true };
    const fromMemory = records.get(recordKey(ctx.queue, ctx.stream, entry.id));
    return fromMemory ? { span: fromMemory, parent: false } : undefined;
  };

  const processStart = (ctx: StreamProcessTraceContext): void => {
    const attributes = {
      [ATTR.system]: SYSTEM,
      [ATTR.operationType]: 'process',
      [ATTR.operationName]: 'consume',
      [ATTR.destination]: ctx.stream,
      [ATTR.queue]: ctx.queue,
      [ATTR.stream]: ctx.stream,
      [ATTR.consumerGroup]: ctx.group,
    };
    let span: Span;
    const only = ctx.entries[0];
    if (ctx.batch || only === undefined) {
      const links: Link[] = [];
      for (const entry of ctx.entries) {
        const from = producerOf(ctx, entry);
        if (from) links.push({ context: from.span, attributes: { [ATTR.messageId]: entry.id } });
      }
      span = tracer.startSpan(`${ctx.stream} process`, { kind: SpanKind.CONSUMER, links, attributes: { ...attributes, [ATTR.batchCount]: ctx.entries.length } }, ROOT_CONTEXT);
    } else {
      const from = producerOf(ctx, only);
      const parent = from?.parent === true ? trace.setSpanContext(ROOT_CONTEXT, from.span) : ROOT_CONTEXT;
      const links: Link[] = from ? [{ context: from.span, attributes: { [ATTR.messageId]: only.id } }] : [];
      span = tracer.startSpan(`${ctx.stream} process`, { kind: SpanKind.CONSUMER, links, attributes: { ...attributes, [ATTR.messageId]: only.id, [ATTR.batchCount]: 1 } }, parent);
    }
    running.set(ctx, span);
    const active = trace.setSpan(ROOT_CONTEXT, span);
    const outer = ctx.enter;
    ctx.enter = (run) => context.with(active, () => (outer ? outer(run) : run()));
  };

  const failed = (span: Span, message: string): void => {
    span.recordException({ name: 'HandlerError', message });
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  };

  const offs = [
    on(traces.streamAppend, 'start', (ctx: AppendTraceContext) => {
      // The caller's active context is the parent: this runs synchronously inside `append`.
      const span = tracer.startSpan(`${ctx.stream} send`, {
        kind: SpanKind.PRODUCER,
        attributes: { [ATTR.system]: SYSTEM, [ATTR.operationType]: 'send', [ATTR.operationName]: 'append', [ATTR.destination]: ctx.stream, [ATTR.queue]: ctx.queue, [ATTR.stream]: ctx.stream },
      });
      sending.set(ctx, span);
      if (ctx.carried) injectSpan(span.spanContext(), ctx.carrier);
    }),
    on(traces.streamAppend, 'error', (ctx: AppendTraceContext) => {
      const span = sending.get(ctx);
      if (span) failed(span, errorText(ctx.error));
    }),
    on(traces.streamAppend, 'asyncEnd', (ctx: AppendTraceContext) => {
      const span = sending.get(ctx);
      if (!span) return;
      sending.delete(ctx);
      const ids = ctx.ids ?? [];
      if (ctx.count === 1 && ids[0] !== undefined) span.setAttribute(ATTR.messageId, ids[0]);
      else span.setAttribute(ATTR.batchCount, ctx.count);
      span.end();
      // Kept for records that carry no context, consumed in this process: a link, not a parent.
      for (const id of ids) records.set(recordKey(ctx.queue, ctx.stream, id), span.spanContext());
    }),
    on(traces.streamProcess, 'start', processStart),
    on(traces.streamProcess, 'asyncEnd', (ctx: StreamProcessTraceContext) => {
      const span = running.get(ctx);
      if (!span) return;
      running.delete(ctx);
      if (ctx.error !== undefined) failed(span, errorText(ctx.error));
      span.end();
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
