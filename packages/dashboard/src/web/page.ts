import { CLIENT_SCRIPT } from './client-script.js';
import { STYLES } from './styles.js';

/** What the page needs from the server: everything else it reads from the JSON API. */
export interface PageSettings {
  readonly title: string;
  readonly readOnly: boolean;
  readonly pollMs: number;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The single HTML page: static markup, a style sheet and a script that polls `api/`. */
export function renderPage(settings: PageSettings): string {
  const title = escapeHtml(settings.title);
  // JSON inside a script element: `<` is escaped so no value can close the element.
  const config = JSON.stringify({ readOnly: settings.readOnly, pollMs: settings.pollMs }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · EchoMQ</title>
<style>${STYLES}</style>
</head>
<body>
<header>
  <h1>${title} <small>EchoMQ</small></h1>
  ${settings.readOnly ? '<span class="badge" data-testid="read-only">read-only</span>' : ''}
  <span id="status" class="status">connecting…</span>
</header>
<main>
  <section>
    <h2>Queues <small id="workers"></small></h2>
    <table id="queues"><thead><tr>
      <th>queue</th><th>state</th><th class="num">pending</th><th class="num">scheduled</th><th class="num">active</th><th class="num">dead</th><th class="num">awaiting children</th>
      <th class="num">completed</th><th class="num">failed</th><th class="num">done/s</th><th class="num">failed/s</th><th></th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section id="jobs" hidden>
    <h2>Jobs in <span id="jobs-queue"></span></h2>
    <form id="search-form" class="bar"><input id="search" type="search" placeholder="job id, business key or name" aria-label="search jobs">
      <button type="submit" data-action="search">search</button></form>
    <nav id="states"></nav>
    <div class="bar"><button id="retry-all" data-action="retry-all">Retry all dead</button>
      <span id="page-info"></span><button id="prev">‹ prev</button><button id="next">next ›</button></div>
    <div id="bulk" class="bar" hidden></div>
    <table id="job-list"><thead><tr>
      <th></th><th>id</th><th>name</th><th>key</th><th>state</th><th class="num">attempts</th><th>when / finished</th><th>payload</th><th>last error</th><th></th>
    </tr></thead><tbody></tbody></table>
    <div id="detail" hidden></div>
  </section>
  <section id="queue-extras" hidden>
    <h2>Per minute <small id="minutes-total"></small></h2>
    <nav><button data-window="60">last hour</button><button data-window="180">last 3 hours</button></nav>
    <div id="minutes" data-testid="minutes"></div>
    <p id="queue-workers" class="note"></p>
    <div id="schedulers" hidden>
      <h2>Schedulers</h2>
      <table><thead><tr><th>id</th><th>pattern</th><th>next run</th><th>last run</th><th>last job</th><th class="num">runs</th><th></th></tr></thead><tbody></tbody></table>
    </div>
  </section>
  <section id="dead-letters" hidden>
    <h2>Dead letters of <span id="dlq-name"></span></h2>
    <div class="bar"><span id="dlq-info"></span><button id="redrive-selected" data-action="redrive-selected">redrive selected</button>
      <button id="redrive-all" data-action="redrive-all">redrive all</button></div>
    <table id="dlq-list"><thead><tr>
      <th></th><th>entry</th><th>group</th><th>consumer</th><th class="num">deliveries</th><th>dead at</th><th>reason</th><th>payload</th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Streams</h2>
    <table id="streams"><thead><tr>
      <th>queue</th><th>stream</th><th class="num">length</th><th>last id</th><th>group</th><th class="num">consumers</th><th class="num">pending</th><th class="num">lag</th><th></th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Keyed cache namespaces</h2>
    <table id="namespaces"><thead><tr>
      <th>namespace</th><th class="num">entries</th><th class="num">tags</th><th class="num">L1 size</th><th class="num">hits</th><th class="num">misses</th><th class="num">hit ratio</th><th class="num">L2 hit ratio</th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section id="namespace" hidden>
    <h2>Namespace <span id="ns-name"></span> <small id="ns-info"></small></h2>
    <table id="ns-entries"><thead><tr><th>key</th><th class="num">expires in</th><th></th></tr></thead><tbody></tbody></table>
    <h2>Tags</h2>
    <table id="ns-tags"><thead><tr><th>tag</th><th class="num">entries</th><th></th></tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Cache tables</h2>
    <p id="cache-note" class="note"></p>
    <table id="caches"><thead><tr>
      <th>table</th><th>kind</th><th class="num">L2 rows</th><th class="num">L1 size</th><th class="num">hits</th><th class="num">misses</th><th class="num">hit ratio</th><th class="num">L2 hit ratio</th>
    </tr></thead><tbody></tbody></table>
  </section>
</main>
<script type="application/json" id="config">${config}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>`;
}
