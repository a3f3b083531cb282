import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, type JobId } from '@echo/protocol';
import { startRedis } from '@echo/testkit';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDashboard, type RunningDashboard } from '../src/index.js';
import { startDemoWorkload, type DemoWorkload } from './demo-workload.js';

/** Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it when missing). */
const CHROMIUM = process.env.ECHO_CHROMIUM ?? '/usr/bin/chromium';
/** Without the background-networking flags Chromium keeps dialling out of a closed network. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Set to a path to refresh the README's screenshot (a dead job opened) from this run. */
const SCREENSHOT = process.env.ECHO_DASHBOARD_SCREENSHOT;
/**
 * Set to a folder (`docs/` of this package, which ships them) to write every screenshot the docs use:
 * `dashboard-queues.png` (the overview) and `dashboard.png` (a dead job opened, the README's).
 */
const SCREENSHOTS = process.env.ECHO_DASHBOARD_SCREENSHOTS;
/** Set to a folder to keep a screenshot of every view (`view-<name>.png`); by default they go to a scratch folder. */
const VIEWS = process.env.ECHO_DASHBOARD_VIEWS;

/** Every wait on the page is for what a user would see; generous, for a loaded 2-core machine. */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });

let demo!: DemoWorkload;
let dashboard!: RunningDashboard;
let browser!: BrowserContext;
/** What beforeAll started, stopped in reverse by afterAll, also when beforeAll failed halfway. */
const cleanups: (() => Promise<void>)[] = [];

describe.skipIf(!existsSync(CHROMIUM))('dashboard in Chromium', () => {
  beforeAll(async () => {
    const server = await startRedis();
    cleanups.push(() => server.stop());
    const conn = await Connection.connect({ url: server.url });
    cleanups.push(() => conn.close());
    demo = await startDemoWorkload(conn);
    cleanups.push(() => demo.stop());
    dashboard = await serveDashboard({ connect: server.url, port: 0, cache: demo.cache, namespaces: [demo.sessions], pollMs: 250 });
    cleanups.push(() => dashboard.close());
    // A fresh profile directory per run: nothing carries over between runs.
    const profile = mkdtempSync(join(tmpdir(), 'echo-chromium-'));
    cleanups.push(() => Promise.resolve(rmSync(profile, { recursive: true, force: true })));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, viewport: { width: 1280, height: 900 } });
    cleanups.push(() => browser.close());
  }, 90_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  // Every view of the dashboard against demo-like data (what `pnpm demo --keep` leaves), each one
  // reached by its deep link and screenshotted: into ECHO_DASHBOARD_VIEWS when set (a folder to look
  // at them), else a scratch folder. Read-only, so it runs before the tests that retry, redrive and delete.
  it('renders every view from its deep link with data in it, and screenshots each', async () => {
    const folder = VIEWS ?? mkdtempSync(join(tmpdir(), 'echo-views-'));
    if (VIEWS === undefined) cleanups.push(() => Promise.resolve(rmSync(folder, { recursive: true, force: true })));
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    const [invoice] = demo.deadInvoices as [JobId];
    const count = (selector: string) => () => page.locator(selector).count();
    const text = (selector: string) => async () => (await page.locator(selector).allTextContents()).join(' | ');
    // Each view with what it must show: a view that renders but stays empty fails here.
    const views: [name: string, hash: string, shows: () => Promise<void>][] = [
      ['overview', '#/', async () => {
        await poll(count('tr[data-queue]')).toBe(5);
        await poll(count('tr[data-stream]')).toBeGreaterThanOrEqual(2);
        await poll(count('tr[data-table="users"]')).toBe(1);
        await poll(count('tr[data-namespace="sessions"]')).toBe(1);
      }],
      ['queue-completed', '#/queue/shipments/completed', async () => {
        await poll(count('#job-list tr[data-job]')).toBe(5);
        await poll(text('#job-list td.name')).toContain('ship-bulky');
        await poll(text('#job-list td.key')).toContain('parcel-2');
        await poll(text('#minutes-total')).toMatch(/^5 completed, 0 failed attempts/);
      }],
      ['queue-failed', '#/queue/invoices/failed', async () => {
        await poll(count('#job-list tr[data-job]')).toBe(3);
        await poll(text('#job-list td.key')).toContain('inv-1');
      }],
      ['queue-dead', '#/queue/invoices/dead', async () => {
        await poll(count('#job-list tr[data-job]')).toBe(3);
        await poll(text('#job-list td.name')).toContain('send-invoice');
        await poll(text('#job-list td.error')).toContain('mail server refused invoice');
        // Per-minute counts: the six failed attempts, in the bar of their minute.
        await poll(text('#minutes-total')).toMatch(/^0 completed, 6 failed attempts/);
        await poll(count('#minutes .minute:not([data-failed="0"])')).toBe(1);
      }],
      ['job-attempts', `#/queue/invoices/job/${invoice}`, async () => {
        await poll(count('[data-testid="timeline"] tbody tr')).toBe(2);
        await poll(text('#detail')).toContain('business key: inv-1');
      }],
      ['search-by-key', '#/queue/shipments/search/parcel-2', async () => {
        await poll(text('#job-list td.state')).toBe('key');
        await poll(text('#job-list td.key')).toBe('parcel-2');
      }],
      ['schedulers', '#/queue/reports/scheduled', async () => {
        // A scheduler that fired: its last run is a time, and the job it enqueued is linked.
        const row = page.locator('tr[data-scheduler="daily-report"]');
        await poll(() => row.locator('td').nth(3).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        await poll(() => row.locator('td').nth(4).getByRole('link').count()).toBe(1);
      }],
      ['stream-dead-letters', '#/stream/orders/refunds/dead-letters', async () => {
        await poll(count('#dlq-list tr[data-letter]')).toBe(2);
        await poll(text('#dlq-list td.error')).toContain('ledger closed for the day');
      }],
      ['namespace', '#/namespace/sessions', async () => {
        await poll(count('#ns-entries tr[data-key]')).toBe(4);
        await poll(text('#ns-tags tr[data-tag] td:first-child')).toBe('team-a | team-b');
      }],
    ];
    for (const [name, hash, shows] of views) {
      await page.goto(`${dashboard.url}${hash}`);
      await shows();
      await page.screenshot({ path: join(folder, `view-${name}.png`), fullPage: true });
      expect(statSync(join(folder, `view-${name}.png`)).size, name).toBeGreaterThan(5_000);
    }
    // The completed tab lists the kept jobs by name, not "no completed jobs" (keys: the search view).
    await page.goto(`${dashboard.url}#/queue/shipments/completed`);
    await poll(() => page.locator('#job-list tr[data-job]').count()).toBe(5);
    const listed = await page.locator('#job-list').textContent();
    expect(listed).toContain('ship-bulky');
    expect(problems).toEqual([]);
  }, 90_000);

  it('shows a dead job with its payload, error and logs; retry brings it back and it completes', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(dashboard.url);

    const orders = page.locator('tr[data-queue="orders"]');
    await poll(() => orders.locator('td').nth(5).textContent()).toBe('1');
    await poll(() => page.locator('tr[data-queue="emails"] td').nth(1).textContent()).toBe('paused');
    // Throughput is computed from two polls of the completed counter while the trickle runs.
    await poll(async () => Number(await orders.locator('td').nth(8).textContent())).toBeGreaterThan(0);
    await poll(() => page.locator('tr[data-stream="orders/audit"]').count()).toBe(2);
    await poll(() => page.locator('tr[data-table="users"] td').nth(6).textContent()).toBe('60.0%');
    if (SCREENSHOTS !== undefined) await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-queues.png'), fullPage: true });

    await orders.getByRole('link', { name: 'orders' }).click();
    const row = page.locator(`tr[data-job="${demo.declined}"]`);
    await poll(() => row.locator('td.error').textContent()).toBe('card declined');
    await row.getByRole('link').click();
    await poll(() => page.getByTestId('payload').textContent()).toContain('"declined": true');
    await poll(() => page.getByTestId('logs').textContent()).toBe('charging 3 x B7');
    if (SCREENSHOT !== undefined) await page.screenshot({ path: SCREENSHOT, fullPage: true });
    if (SCREENSHOTS !== undefined) await page.screenshot({ path: join(SCREENSHOTS, 'dashboard.png'), fullPage: true });

    const events = await demo.orders.events();
    const completed = new Promise<number>((resolve) => {
      events.on('completed', (event) => {
        if (event.job === demo.declined) resolve(Date.now());
      });
    });
    await row.locator('button[data-action="retry"]').click();
    await completed;
    await events.close();
    // The row is deleted on completion (protocol), so the page sees no dead job and no row.
    await poll(() => orders.locator('td').nth(5).textContent()).toBe('0');
    await poll(() => page.locator(`tr[data-job="${demo.declined}"]`).count()).toBe(0);
    expect(await demo.orders.getState(demo.declined)).toBe('absent');
    expect(problems).toEqual([]);
  }, 90_000);

  it('finds a job by its business key, deep-links to it and shows every attempt with its error', async () => {
    const page = await browser.newPage();
    await page.goto(dashboard.url);
    await page.locator('tr[data-queue="invoices"]').getByRole('link', { name: 'invoices' }).click();
    await page.locator('#search').fill('inv-2');
    await page.locator('button[data-action="search"]').click();
    const id = demo.deadInvoices[1] ?? '';
    const hit = page.locator(`tr[data-job="${id}"]`);
    await poll(() => hit.locator('td.state').textContent()).toBe('key');
    expect(new URL(page.url()).hash).toBe('#/queue/invoices/search/inv-2');
    await hit.getByRole('link', { name: id }).click();
    expect(new URL(page.url()).hash).toBe(`#/queue/invoices/job/${id}`);
    // Each timeline row: #, started, ended, took, outcome, error; the test reads #, outcome and error.
    const timeline = async (p: typeof page): Promise<string[][]> => {
      const cells = await p.getByTestId('timeline').locator('tbody td').allTextContents();
      return Array.from({ length: cells.length / 6 }, (_, r) => [cells[r * 6], cells[r * 6 + 4], cells[r * 6 + 5]].map(String));
    };
    const expected = [
      ['1', 'retried', 'mail server refused invoice 2 (attempt 1)'],
      ['2', 'failed', 'mail server refused invoice 2 (attempt 2)'],
    ];
    await poll(() => timeline(page)).toEqual(expected);
    // The same URL in a fresh tab opens the same job page: a deep link.
    const fresh = await browser.newPage();
    await fresh.goto(page.url());
    await poll(() => timeline(fresh)).toEqual(expected);
    await poll(() => fresh.getByTestId('payload').textContent()).toContain('"n": 2');
    if (SCREENSHOTS !== undefined) await fresh.screenshot({ path: join(SCREENSHOTS, 'job-timeline.png'), fullPage: true });
    // Failures per minute over the last hour: two failed attempts for each of the three invoices.
    const busy = fresh.locator('#minutes .minute:not([data-failed="0"])');
    await poll(() => busy.count()).toBe(1);
    expect(await busy.getAttribute('data-failed')).toBe('6');
    expect(await fresh.locator('#minutes .minute').count()).toBe(60);
    expect(await fresh.locator('#minutes-total').textContent()).toBe('0 completed, 6 failed attempts in the last 60 minutes');
    await fresh.locator('button[data-window="180"]').click();
    await poll(() => fresh.locator('#minutes .minute').count()).toBe(180);
    expect(await fresh.locator('#minutes-total').textContent()).toBe('0 completed, 6 failed attempts in the last 180 minutes');
  }, 90_000);

  it('retries a selection of failed jobs, leaving the others dead', async () => {
    const page = await browser.newPage();
    await page.goto(`${dashboard.url}#/queue/invoices/dead`);
    const [first, second, third] = demo.deadInvoices as [JobId, JobId, JobId];
    await poll(() => page.locator('#job-list tr[data-job]').count()).toBe(3);
    await page.locator(`input[data-select="${first}"]`).check();
    await page.locator(`input[data-select="${third}"]`).check();
    await poll(() => page.locator('#selected-count').textContent()).toBe('2 selected');
    await page.locator('button[data-bulk="retry"]').click();
    await poll(() => Promise.all([first, second, third].map((id) => demo.invoices.getState(id)))).toEqual(['pending', 'dead', 'pending']);
    await poll(() => page.locator('#job-list tr[data-job]').count()).toBe(1);
    expect(await page.locator('#job-list tr[data-job]').getAttribute('data-job')).toBe(second);
  }, 60_000);

  it("redrives a stream's dead letters: one selected, then all", async () => {
    const page = await browser.newPage();
    await page.goto(dashboard.url);
    await page.locator('tr[data-stream="orders/refunds"] a[data-action="dead-letters"]').click();
    expect(new URL(page.url()).hash).toBe('#/stream/orders/refunds/dead-letters');
    const letters = page.locator('#dlq-list tr[data-letter]');
    await poll(() => letters.count()).toBe(2);
    await poll(() => letters.first().locator('td.error').textContent()).toBe('ledger closed for the day');
    const [r1, r2] = demo.deadRefunds as [string, string];
    await page.locator(`input[data-select="${r1}"]`).check();
    await page.locator('#redrive-selected').click();
    await poll(async () => (await demo.refunds.deadLetters()).map((d) => d.id)).toEqual([r2]);
    await poll(() => letters.count()).toBe(1);
    await page.locator('#redrive-all').click();
    await poll(async () => (await demo.refunds.deadLetters()).length).toBe(0);
    await poll(() => page.locator('#dlq-info').textContent()).toBe('no dead letters');
    const pending = (await demo.cache.connection.command('XPENDING', demo.refunds.key, 'ledger')) as [number, ...unknown[]];
    expect(pending[0]).toBe(2);
  }, 60_000);

  it('shows which scheduler produced a job and when it runs next', async () => {
    const page = await browser.newPage();
    await page.goto(`${dashboard.url}#/queue/reports/scheduled`);
    const row = page.locator('tr[data-scheduler="daily-report"]');
    await poll(() => row.locator('td').nth(1).textContent()).toBe('every 86400000 ms');
    await row.locator('td').nth(4).getByRole('link').click();
    await poll(() => page.getByTestId('scheduler').textContent()).toMatch(/^from scheduler daily-report \(every 86400000 ms; next run \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, last run /);
  }, 60_000);

  it('shows a keyed namespace with its hit ratio, and deletes a key and a tag', async () => {
    const page = await browser.newPage();
    await page.goto(dashboard.url);
    const row = page.locator('tr[data-namespace="sessions"]');
    await poll(() => row.locator('td').nth(6).textContent()).toBe('75.0%');
    await row.getByRole('link', { name: 'sessions' }).click();
    const entries = page.locator('#ns-entries tr[data-key]');
    await poll(() => entries.count()).toBe(4);
    await page.locator('tr[data-key="s-cy"] button[data-action="delete-key"]').click();
    await poll(() => entries.count()).toBe(3);
    await poll(() => demo.sessions.get('s-cy')).toBeUndefined();
    await page.locator('tr[data-tag="team-a"] button[data-action="delete-tag"]').click();
    await poll(() => entries.count()).toBe(1);
    expect(await entries.getAttribute('data-key')).toBe('s-di');
    await poll(() => demo.sessions.get('s-ann')).toBeUndefined();
  }, 60_000);

  it('pauses and resumes a queue from its button', async () => {
    const page = await browser.newPage();
    await page.goto(dashboard.url);
    const emails = page.locator('tr[data-queue="emails"]');
    await emails.locator('button[data-action="resume"]').click();
    await poll(() => emails.locator('td').nth(1).textContent()).toBe('running');
    await emails.locator('button[data-action="pause"]').click();
    await poll(() => emails.locator('td').nth(1).textContent()).toBe('paused');
  }, 60_000);
});
