import { describe, expectTypeOf, it } from 'vitest';
import type { EventsListener, LifecycleEvent, RawLifecycleMessage } from '../src/extend.js';

declare const events: EventsListener;

describe('EventsListener.on', () => {
  it('types each listener by its event name, over a closed set', () => {
    events.on('completed', (e) => expectTypeOf(e.event).toEqualTypeOf<'completed'>());
    events.on('*', (e) => expectTypeOf(e).toEqualTypeOf<LifecycleEvent>());
    events.on('raw', (m) => expectTypeOf(m).toEqualTypeOf<RawLifecycleMessage>());
    events.on((e) => expectTypeOf(e).toEqualTypeOf<LifecycleEvent>());
    // @ts-expect-error not an event name
    events.on('complted', () => undefined);
  });

  it('types the fields each event carries, as optional strings off the wire', () => {
    events.on('active', (e) => expectTypeOf(e.fields.attempt).toEqualTypeOf<string | undefined>());
    events.on('failed', (e) => expectTypeOf(e.fields.outcome).toEqualTypeOf<string | undefined>());
    events.on('deduplicated', (e) => expectTypeOf(e.fields.refused).toEqualTypeOf<string | undefined>());
    events.on('drained', (e) => expectTypeOf(e.job).toEqualTypeOf<string>());
    events.on('waiting', (e) => expectTypeOf(e.event).toEqualTypeOf<'waiting'>());
  });
});
