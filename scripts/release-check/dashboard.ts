/**
 * A first app with `@echo/dashboard` alone: serve it on a free port over a queue with one job, load
 * the page and the JSON API as a browser would. The release check typechecks it, bundles it and
 * runs it against a real server.
 */
import { Queue } from '@echo/queue';
import { serveDashboard } from '@echo/dashboard';

const url = process.env.REDIS_URL;
if (url === undefined) throw new Error('REDIS_URL is required');

const name = `release-dashboard-${process.pid}`;
const queue = await Queue.open<string>(name, { connect: url });
await queue.enqueue('hello');
const dashboard = await serveDashboard({ connect: url, port: 0, readOnly: true });
const page = await fetch(dashboard.url);
const html = await page.text();
const api = await fetch(new URL(`api/queues/${name}`, dashboard.url));
const summary = (await api.json()) as { counts?: { pending?: number } };
await dashboard.close();
await queue.pause(); // obliterate refuses a queue that is still live
await queue.obliterate({ force: true });
await queue.close();
const pending = summary.counts?.pending;
console.log(JSON.stringify({ app: 'dashboard', page: page.status, api: api.status, pending }));
if (page.status !== 200 || !html.includes('</html>') || api.status !== 200 || pending !== 1) process.exit(1);
