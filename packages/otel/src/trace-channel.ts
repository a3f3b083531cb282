import { subscribe, unsubscribe } from 'node:diagnostics_channel';

type TraceEvent = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';

/** Subscribes `fn` to one event of a tracing channel; answers the function that unsubscribes it. */
export function on(channel: Readonly<Record<TraceEvent, { readonly name: string | symbol }>>, event: TraceEvent, fn: (message: never) => void): () => void {
  const name = channel[event].name;
  const listener = (message: unknown): void => {
    fn(message as never);
  };
  subscribe(name, listener);
  return () => {
    unsubscribe(name, listener);
  };
}

/** The text of what a traced call threw. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === 'string' ? error : 'failed';
}
