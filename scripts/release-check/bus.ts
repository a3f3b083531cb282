/**
 * A first app with `@echo/bus` alone: append records to a stream log and read them back in order.
 * The release check typechecks it, bundles it and runs it against a real server.
 */
import { Bus } from '@echo/bus';

const url = process.env.REDIS_URL;
if (url === undefined) throw new Error('REDIS_URL is required');

const bus = await Bus.open(`release-bus-${process.pid}`, { connect: url });
const audit = bus.stream('audit');
const first = await audit.append({ action: 'refund', amount: '12.50' });
await audit.appendBatch([{ action: 'a' }, { action: 'b' }]);
const records = await audit.read({ from: first });
await audit.drop();
await bus.close();
console.log(JSON.stringify({ app: 'bus', records: records.length }));
if (records.length !== 3) process.exit(1);
