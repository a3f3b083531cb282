/**
 * The page's script: polls the JSON API and renders with DOM calls (text only, never innerHTML of
 * server data). Throughput is the change of the monotonic completed/failed counters between two
 * polls over the time between them. Written as plain ES2020 in a string: it runs in the browser
 * untranspiled, and the browser test in test/dashboard-browser.test.ts is what exercises it.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('config').textContent);
  var STATES = ['pending', 'scheduled', 'active', 'dead'];
  var view = { queue: null, state: 'dead', offset: 0, limit: 25, detail: null };
  var last = {};
  var statusEl = document.getElementById('status');

  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) for (var k in props) {
      if (k === 'text') node.textContent = props[k];
      else if (k === 'className') node.className = props[k];
      else if (k === 'onclick') node.onclick = (function (handler) {
        return function (event) { event.preventDefault(); return handler.call(this, event); };
      })(props[k]);
      else node.setAttribute(k, props[k]);
    }
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) node.appendChild(arguments[i]);
    return node;
  }
  function td(text, className) { return el('td', { text: text == null ? '' : String(text), className: className || '' }); }
  function num(n) { return td(n == null ? '–' : Number(n).toLocaleString('en'), 'num'); }
  function fill(tbody, rows) { tbody.replaceChildren.apply(tbody, rows); }
  function when(ms) { return ms == null ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19); }
  function enc(s) { return encodeURIComponent(s); }

  function api(path, method) {
    var init = method ? { method: method, headers: { 'x-echo-dashboard': '1' } } : undefined;
    return fetch('api/' + path, init).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new Error(body.message || res.statusText);
        return body;
      });
    });
  }
  function act(path) {
    return function () {
      this.disabled = true;
      api(path, 'POST').catch(report).then(refresh);
    };
  }
  function report(error) { statusEl.textContent = String(error.message || error); statusEl.className = 'status bad'; }

  function renderQueues(body) {
    var now = body.at, rows = [];
    document.getElementById('workers').textContent = body.workers == null ? '' : '· ' + body.workers + ' worker connection(s) on the server';
    body.queues.forEach(function (q) {
      var prev = last[q.name], seconds = prev ? (now - prev.at) / 1000 : 0;
      var rate = function (k) { return prev && seconds > 0 ? (Math.max(0, q.counts[k] - prev.counts[k]) / seconds).toFixed(1) : '–'; };
      last[q.name] = { at: now, counts: q.counts };
      var name = el('a', { href: '#', text: q.name, onclick: function () { openQueue(q.name); } });
      var control = config.readOnly ? null : el('button', {
        text: q.paused ? 'resume' : 'pause', 'data-action': q.paused ? 'resume' : 'pause',
        onclick: act('queues/' + enc(q.name) + (q.paused ? '/resume' : '/pause')),
      });
      rows.push(el('tr', { 'data-queue': q.name },
        el('td', null, name), td(q.paused ? 'paused' : 'running', q.paused ? 'paused' : 'running'),
        num(q.counts.pending), num(q.counts.scheduled), num(q.counts.active), num(q.counts.dead), num(q.counts.awaitingChildren),
        num(q.counts.completed), num(q.counts.failed), td(rate('completed'), 'num'), td(rate('failed'), 'num'),
        el('td', null, control)));
      if (view.queue === q.name) renderStates(q.counts);
    });
    fill(document.querySelector('#queues tbody'), rows);
  }

  function renderStates(counts) {
    var nav = document.getElementById('states');
    fill(nav, STATES.map(function (s) {
      return el('button', { text: s + ' (' + counts[s] + ')', className: s === view.state ? 'on' : '', 'data-state': s,
        onclick: function () { view.state = s; view.offset = 0; view.detail = null; refresh(); } });
    }));
  }

  function openQueue(name) {
    view = { queue: name, state: 'dead', offset: 0, limit: 25, detail: null };
    document.getElementById('jobs').hidden = false;
    document.getElementById('jobs-queue').textContent = name;
    refresh();
  }

  function renderJobs(page) {
    var q = enc(view.queue);
    document.getElementById('page-info').textContent = page.total === 0 ? 'no ' + page.state + ' jobs'
      : (page.offset + 1) + '–' + (page.offset + page.jobs.length) + ' of ' + page.total;
    document.getElementById('prev').disabled = page.offset === 0;
    document.getElementById('next').disabled = page.offset + page.jobs.length >= page.total;
    var retryAll = document.getElementById('retry-all');
    retryAll.hidden = config.readOnly || page.state !== 'dead' || page.total === 0;
    retryAll.disabled = false;
    retryAll.onclick = act('queues/' + q + '/retry-dead');
    fill(document.querySelector('#job-list tbody'), page.jobs.map(function (job) {
      var buttons = el('td');
      if (!config.readOnly && page.state === 'dead') {
        buttons.appendChild(el('button', { text: 'retry', 'data-action': 'retry', onclick: act('queues/' + q + '/jobs/' + job.id + '/retry') }));
        buttons.appendChild(el('button', { text: 'remove', 'data-action': 'remove', onclick: act('queues/' + q + '/jobs/' + job.id + '/remove') }));
      }
      return el('tr', { 'data-job': job.id },
        el('td', null, el('a', { href: '#', text: job.id, onclick: function () { view.detail = job.id; refresh(); } })),
        num(job.attempts), td(when(job.at)), td(job.payload, 'payload'), td(job.lastError, 'error'), buttons);
    }));
  }

  function renderDetail(job) {
    var box = document.getElementById('detail');
    box.hidden = false;
    var pretty = job.payload;
    try { pretty = JSON.stringify(JSON.parse(job.payload), null, 2); } catch (e) { /* not JSON: shown as stored */ }
    fill(box, [
      el('h2', { text: 'Job ' + job.id + ' · ' + job.position + ' · attempt ' + job.attempts + (job.stalled ? ' · stalled ' + job.stalled : '') }),
      job.lastError ? el('p', { className: 'error', text: 'last error: ' + job.lastError }) : null,
      job.progress ? el('p', { text: 'progress: ' + job.progress }) : null,
      job.lane ? el('p', { text: 'lane: ' + job.lane }) : null,
      job.result !== null ? el('strong', { text: 'result' }) : null,
      job.result !== null ? el('pre', { 'data-testid': 'result', text: typeof job.result === 'string' ? job.result : JSON.stringify(job.result, null, 2) }) : null,
      el('strong', { text: 'payload' }), el('pre', { 'data-testid': 'payload', text: pretty }),
      el('strong', { text: 'logs (' + job.logs.length + ')' }), el('pre', { 'data-testid': 'logs', text: job.logs.join('\n') || '(none)' }),
    ].filter(Boolean));
  }

  function renderStreams(body) {
    var rows = [];
    body.streams.forEach(function (s) {
      var groups = s.groups.length ? s.groups : [null];
      groups.forEach(function (g) {
        rows.push(el('tr', { 'data-stream': s.queue + '/' + s.name },
          td(s.queue), td(s.name), num(s.length), td(s.lastId || ''),
          td(g ? g.name : '(no groups)'), g ? num(g.consumers) : td(''), g ? num(g.pending) : td(''), g ? num(g.lag) : td('')));
      });
    });
    fill(document.querySelector('#streams tbody'), rows);
  }

  function renderCaches(body) {
    document.getElementById('cache-note').textContent = body.local
      ? 'Hit ratios come from the cache tables declared in the process serving this page; other processes keep their own.'
      : 'Hit ratios live in each process\u2019s memory, not on the server: mount the dashboard with { cache } to see this process\u2019s.';
    fill(document.querySelector('#caches tbody'), body.tables.map(function (t) {
      var l = t.local;
      return el('tr', { 'data-table': t.table }, td(t.table), td(t.kind || ''), num(t.l2Rows),
        l ? num(l.size) : td(''), l ? num(l.hits) : td(''), l ? num(l.misses) : td(''),
        td(l && l.hitRatio != null ? (l.hitRatio * 100).toFixed(1) + '%' : '–', 'num'),
        td(l && l.l2HitRatio != null ? (l.l2HitRatio * 100).toFixed(1) + '%' : '–', 'num'));
    }));
  }

  var busy = false;
  function refresh() {
    if (busy) return Promise.resolve();
    busy = true;
    var work = [api('queues').then(renderQueues), api('streams').then(renderStreams), api('caches').then(renderCaches)];
    if (view.queue) {
      var q = enc(view.queue);
      work.push(api('queues/' + q + '/jobs?state=' + view.state + '&offset=' + view.offset + '&limit=' + view.limit).then(renderJobs));
      if (view.detail) work.push(api('queues/' + q + '/jobs/' + view.detail).then(renderDetail, function () {
        view.detail = null; document.getElementById('detail').hidden = true;
      }));
      else document.getElementById('detail').hidden = true;
    }
    return Promise.all(work).then(function () {
      statusEl.textContent = 'updated ' + new Date().toLocaleTimeString('en-GB');
      statusEl.className = 'status';
    }, report).then(function () { busy = false; });
  }

  document.getElementById('prev').onclick = function () { view.offset = Math.max(0, view.offset - view.limit); refresh(); };
  document.getElementById('next').onclick = function () { view.offset += view.limit; refresh(); };
  refresh();
  setInterval(refresh, config.pollMs);
})();
`;
