import { EchoError } from '@echo/protocol/queue';

/**
 * A handler returned a value its job's result cannot carry (JSON refuses a cycle or a bigint). The
 * attempt fails with this error, retried and dead-lettered like any failure, so the job's outcome
 * never depends on where the encoding error was reported.
 */
export class ResultEncodingError extends EchoError {
  constructor(cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super('result_encoding', `handler result cannot be encoded: ${why}`, { cause });
  }
}

/** The failure a handler's return value makes, or `undefined` when it encodes (as `resultText` will). */
export function unencodable(result: unknown): { readonly reason: ResultEncodingError } | undefined {
  if (result === undefined || typeof result === 'string') return undefined;
  try {
    JSON.stringify(result);
    return undefined;
  } catch (error) {
    return { reason: new ResultEncodingError(error) };
  }
}
