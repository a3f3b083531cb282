import { describe, expectTypeOf, it } from 'vitest';
import type { EventsListener, LifecycleEvent, RawLifecycleMessage } from '../src/index.js';

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
});
