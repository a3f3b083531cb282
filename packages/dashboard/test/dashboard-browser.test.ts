import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@echo/protocol';
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
    dashboard = await serveDashboard({ connect: server.url, port: 0, cache: demo.cache, pollMs: 250 });
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
