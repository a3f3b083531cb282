/**
 * `@echo/bus/wire`: the bus's records as they sit in Redis, for code that reads them raw (another
 * client, `redis-cli`, a migration, a test): the XADD id a stream stores an EVT record under, the
 * XRANGE bounds of a wall-clock window, and the event name of a message off the events channel.
 * Apps that go through `Stream` and `bus.events()` need none of it: every verb there takes
 * EVT ids and instants as they are.
 *
 * @packageDocumentation
 */
export { maxidCeil, minidFloor, type Instant } from './record/instant.js';
export { xaddId } from './record/xadd-id.js';
export { eventNameOf } from './events/listener.js';
