import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { onHook } from '@echo/protocol';
import { ATTR, SYSTEM } from './attributes.js';
import { Recent } from './recent.js';

/** Where a job or record was produced: its producer span, and whether it was produced alone. */
interface Produced {
  readonly span: SpanContext;
  /** True for a single admission: the consumer span is then its child (one trace per job). */
  readonly alone: boolean;
}

/** How many produced contexts and open consumer spans are kept. */
export interface TraceLimits {
  /** Producer contexts kept for linking, by job or record id. Default 10,000. */
  readonly produced?: number;
  /** Consumer spans open at once (handlers running). Default 10,000. */
  readonly open?: number;
}

function jobKey(queue: string, jobId: string): string {
  return `${queue}\u0000${jobId}`;
}

/** A span that already ran for `durationMs`, ending now. */
function pastSpan(tracer: Tracer, name: string, kind: SpanKind, durationMs: number, parent = context.active(), links: Link[] = []): Span {
  const now = Date.now();
  const span = tracer.startSpan(name, { kind, startTime: now - durationMs, links, attributes: { [ATTR.system]: SYSTEM } }, parent);
  return span;
}

/**
 * Subscribes to the hooks and makes spans: a producer span per admission (`<queue> send`), a
 * consumer span per handler run (`<queue> process`, child of its producer span when the job was
 * admitted alone in this process, linked to it always), a producer span per stream append and a
 * consumer span per delivery with a link to each record's producer span (a batch as links).
 * Answers the function that unsubscribes and ends the spans still open.
 *
 * The producer context reaches the consumer through this process's memory: a job admitted by
 * another process starts a trace of its own (carrying it in the job row needs a protocol field).
 */
export function traceHooks(tracer: Tracer, limits: TraceLimits = {}): () => void {
  const produced = new Recent<Produced>(limits.produced ?? 10_000);
  const open = new Recent<Span>(limits.open ?? 10_000, (span) => {
    span.setAttribute(ATTR.outcome, 'untracked');
    span.end();
  });
  const records = new Recent<SpanContext>(limits.produced ?? 10_000);

  const offs = [
    onHook('emq.job.enqueue', (e) => {
      const span = pastSpan(tracer, `${e.queue} send`, SpanKind.PRODUCER, e.durationMs);
      span.setAttributes({ [ATTR.operationType]: 'send', [ATTR.operationName]: 'enqueue', [ATTR.destination]: e.queue, [ATTR.queue]: e.queue, [ATTR.delayed]: e.delayed });
      if (e.count === 1 && e.jobIds[0] !== undefined) span.setAttribute(ATTR.messageId, e.jobIds[0]);
      else span.setAttribute(ATTR.batchCount, e.count);
      span.end();
      const origin = { span: span.spanContext(), alone: e.count === 1 };
      for (const id of e.jobIds) produced.set(jobKey(e.queue, id), origin);
    }),
    onHook('emq.job.start', (e) => {
      const from = produced.take(jobKey(e.queue, e.jobId));
      const parent = from?.alone === true ? trace.setSpanContext(ROOT_CONTEXT, from.span) : ROOT_CONTEXT;
      const links: Link[] = from ? [{ context: from.span }] : [];
      const span = tracer.startSpan(`${e.queue} process`, { kind: SpanKind.CONSUMER, links, attributes: { [ATTR.system]: SYSTEM } }, parent);
      span.setAttributes({ [ATTR.operationType]: 'process', [ATTR.operationName]: 'process', [ATTR.destination]: e.queue, [ATTR.queue]: e.queue, [ATTR.messageId]: e.jobId, [ATTR.attempt]: e.attempt });
      if (e.group !== undefined) span.setAttribute(ATTR.lane, e.group);
      open.set(`${jobKey(e.queue, e.jobId)}\u0000${String(e.attempt)}`, span);
    }),
    onHook('emq.job.complete', (e) => {
      const span = open.take(`${jobKey(e.queue, e.jobId)}\u0000${String(e.attempt)}`);
      if (!span) return;
      span.setAttribute(ATTR.outcome, 'completed');
      span.end();
    }),
    onHook('emq.job.fail', (e) => {
      const span = open.take(`${jobKey(e.queue, e.jobId)}\u0000${String(e.attempt)}`);
      if (!span) return;
      span.setAttribute(ATTR.outcome, e.outcome);
      span.recordException({ name: 'HandlerError', message: e.error });
      span.setStatus({ code: SpanStatusCode.ERROR, message: e.error });
      span.end();
    }),
    onHook('emq.stream.append', (e) => {
      const span = pastSpan(tracer, `${e.stream} send`, SpanKind.PRODUCER, e.durationMs);
      span.setAttributes({ [ATTR.operationType]: 'send', [ATTR.operationName]: 'append', [ATTR.destination]: e.stream, [ATTR.queue]: e.queue, [ATTR.stream]: e.stream });
      if (e.count === 1 && e.ids[0] !== undefined) span.setAttribute(ATTR.messageId, e.ids[0]);
      else span.setAttribute(ATTR.batchCount, e.count);
      span.end();
      for (const id of e.ids) records.set(`${e.queue}\u0000${e.stream}\u0000${id}`, span.spanContext());
    }),
    onHook('emq.stream.consume', (e) => {
      const links: Link[] = [];
      for (const id of e.ids) {
        const from = records.get(`${e.queue}\u0000${e.stream}\u0000${id}`);
        if (from) links.push({ context: from, attributes: { [ATTR.messageId]: id } });
      }
      const span = pastSpan(tracer, `${e.stream} process`, SpanKind.CONSUMER, e.durationMs, ROOT_CONTEXT, links);
      span.setAttributes({
        [ATTR.operationType]: 'process',
        [ATTR.operationName]: 'consume',
        [ATTR.destination]: e.stream,
        [ATTR.queue]: e.queue,
        [ATTR.stream]: e.stream,
        [ATTR.consumerGroup]: e.group,
        [ATTR.batchCount]: e.count,
      });
      span.end();
    }),
  ];
  return () => {
    for (const off of offs) off();
    open.clear();
  };
}
