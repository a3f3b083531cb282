import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { onHook, traces, type EnqueueTraceContext, type ProcessTraceContext, type ProcessedJob } from '@echo/protocol/extend';
import { ATTR, SYSTEM } from './attributes.js';
import { Recent } from './recent.js';
import { errorText, on } from './trace-channel.js';
import { extractSpan, injectSpan } from './w3c.js';

/** Bounds on what the job spans keep in memory. */
export interface JobTraceLimits {
  /** Producer contexts of batch admissions kept for linking, by job id. Default 10,000. */
  readonly produced?: number;
  /** Consumer spans open at once (handlers running or settling). Default 10,000. */
  readonly open?: number;
}

function jobKey(queue: string, jobId: string): string {
  return `${queue}\u0000${jobId}`;
}

function attemptKey(queue: string, jobId: string, attempt: number): string {
  return `${jobKey(queue, jobId)}\u0000${String(attempt)}`;
}

/**
 * Job spans. A producer span per admission call (`<queue> send`), started before anything is sent
 * and written into the job row as W3C `traceparent`/`tracestate` (single admissions: `enqueue`,
 * timed, keyed, `enqueueInLane`); a consumer span per handler run (`<queue> process`), the child of
 * the context read from the row and linked to it, current while the handler runs, so the spans
 * the handler starts are its children. A `BatchWorker` run is one consumer span linked to each
 * member's producer. `enqueueMany` rows carry no context: its jobs are linked (not parented) to the
 * batch's producer span through this process's memory, so a job of a batch consumed elsewhere
 * starts a trace of its own.
 */
export function jobTraceHooks(tracer: Tracer, limits: JobTraceLimits = {}): () => void {
  const sending = new WeakMap<EnqueueTraceContext, Span>();
  const batches = new WeakMap<ProcessTraceContext, Span>();
  const produced = new Recent<SpanContext>(limits.produced ?? 10_000);
  const open = new Recent<Span>(limits.open ?? 10_000, (span) => {
    span.setAttribute(ATTR.outcome, 'untracked');
    span.end();
  });

  const producerOf = (queue: string, job: ProcessedJob): { readonly span: SpanContext; readonly parent: boolean } | undefined => {
    const fromRow = extractSpan(job.trace);
    if (fromRow) return { span: fromRow, parent: true };
    const fromBatch = produced.take(jobKey(queue, job.jobId));
    return fromBatch ? { span: fromBatch, parent: false } : undefined;
  };

  const enter = (ctx: ProcessTraceContext, span: Span): void => {
    const active = trace.setSpan(ROOT_CONTEXT, span);
    const outer = ctx.enter;
    ctx.enter = (run) => context.with(active, () => (outer ? outer(run) : run()));
  };

  const processStart = (ctx: ProcessTraceContext): void => {
    const base = { [ATTR.system]: SYSTEM, [ATTR.operationType]: 'process', [ATTR.operationName]: 'process', [ATTR.destination]: ctx.queue, [ATTR.queue]: ctx.queue };
    if (ctx.batch) {
      const links: Link[] = [];
      for (const job of ctx.jobs) {
        const from = producerOf(ctx.queue, job);
        if (from) links.push({ context: from.span, attributes: { [ATTR.messageId]: job.jobId } });
      }
      const span = tracer.startSpan(`${ctx.queue} process`, { kind: SpanKind.CONSUMER, links, attributes: { ...base, [ATTR.batchCount]: ctx.jobs.length } }, ROOT_CONTEXT);
      batches.set(ctx, span);
      enter(ctx, span);
      return;
    }
    const job = ctx.jobs[0];
    if (job === undefined) return;
    const from = producerOf(ctx.queue, job);
    const parent = from?.parent === true ? trace.setSpanContext(ROOT_CONTEXT, from.span) : ROOT_CONTEXT;
    const links: Link[] = from ? [{ context: from.span }] : [];
    const span = tracer.startSpan(`${ctx.queue} process`, { kind: SpanKind.CONSUMER, links, attributes: { ...base, [ATTR.messageId]: job.jobId, [ATTR.attempt]: job.attempt } }, parent);
    if (job.group !== undefined) span.setAttribute(ATTR.lane, job.group);
    open.set(attemptKey(ctx.queue, job.jobId, job.attempt), span);
    enter(ctx, span);
  };

  const failed = (span: Span, message: string): void => {
    span.recordException({ name: 'HandlerError', message });
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  };

  const offs = [
    on(traces.enqueue, 'start', (ctx: EnqueueTraceContext) => {
      // The caller's active context is the parent: this runs synchronously inside `enqueue`.
      const span = tracer.startSpan(`${ctx.queue} send`, {
        kind: SpanKind.PRODUCER,
        attributes: { [ATTR.system]: SYSTEM, [ATTR.operationType]: 'send', [ATTR.operationName]: 'enqueue', [ATTR.destination]: ctx.queue, [ATTR.queue]: ctx.queue, [ATTR.delayed]: ctx.delayed },
      });
      sending.set(ctx, span);
      injectSpan(span.spanContext(), ctx.carrier);
    }),
    on(traces.enqueue, 'error', (ctx: EnqueueTraceContext) => {
      const span = sending.get(ctx);
      if (span) failed(span, errorText(ctx.error));
    }),
    on(traces.enqueue, 'asyncEnd', (ctx: EnqueueTraceContext) => {
      const span = sending.get(ctx);
      if (!span) return;
      sending.delete(ctx);
      const ids = ctx.jobIds ?? [];
      if (ctx.count === 1 && ids[0] !== undefined) span.setAttribute(ATTR.messageId, ids[0]);
      else span.setAttribute(ATTR.batchCount, ids.length);
      span.end();
      if (ctx.count !== 1) for (const id of ids) produced.set(jobKey(ctx.queue, id), span.spanContext());
    }),
    on(traces.process, 'start', processStart),
    on(traces.process, 'asyncEnd', (ctx: ProcessTraceContext) => {
      // A batch span ends with its handler; a single job's waits for its settled verdict.
      const span = batches.get(ctx);
      if (!span) return;
      batches.delete(ctx);
      if (ctx.error !== undefined) failed(span, errorText(ctx.error));
      span.end();
    }),
    onHook('emq.job.complete', (e) => {
      const span = open.take(attemptKey(e.queue, e.jobId, e.attempt));
      if (!span) return;
      span.setAttribute(ATTR.outcome, 'completed');
      span.end();
    }),
    onHook('emq.job.fail', (e) => {
      const span = open.take(attemptKey(e.queue, e.jobId, e.attempt));
      if (!span) return;
      span.setAttribute(ATTR.outcome, e.outcome);
      failed(span, e.error);
      span.end();
    }),
  ];
  return () => {
    for (const off of offs) off();
    open.clear();
  };
}
