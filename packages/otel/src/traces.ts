import { ROOT_CONTEXT, SpanKind, context, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { onHook } from '@echo/protocol';
import { ATTR, SYSTEM } from './attributes.js';
import { jobTraceHooks } from './job-traces.js';
import { Recent } from './recent.js';

/** How many produced contexts and open consumer spans are kept. */
export interface TraceLimits {
  /** Producer contexts kept for linking (batch admissions and stream records), by id. Default 10,000. */
  readonly produced?: number;
  /** Consumer spans open at once (handlers running). Default 10,000. */
  readonly open?: number;
}

/** A span that already ran for `durationMs`, ending now. */
function pastSpan(tracer: Tracer, name: string, kind: SpanKind, durationMs: number, parent = context.active(), links: Link[] = []): Span {
  const now = Date.now();
  return tracer.startSpan(name, { kind, startTime: now - durationMs, links, attributes: { [ATTR.system]: SYSTEM } }, parent);
}

/**
 * Subscribes to the hooks and makes spans: the job spans of {@link jobTraceHooks} (producer context
 * carried in the job row, handlers run inside their consumer span), a producer span per stream
 * append and a consumer span per delivery with a link to each record's producer span (a batch as
 * links). Answers the function that unsubscribes and ends the spans still open.
 *
 * Stream records carry no context on the wire: a record appended by another process starts a
 * trace of its own.
 */
export function traceHooks(tracer: Tracer, limits: TraceLimits = {}): () => void {
  const records = new Recent<SpanContext>(limits.produced ?? 10_000);
  const offs = [
    jobTraceHooks(tracer, limits),
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
  };
}
