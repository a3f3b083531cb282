import { JOBS_SCRIPT } from './client-jobs.js';

/**
 * The page's script: polls the JSON API and renders with DOM calls (text only, never innerHTML of
 * server data). Every view has a URL (the hash: `#/queue/<q>/<state>`, `#/queue/<q>/job/<id>`,
 * `#/queue/<q>/search/<text>`, `#/stream/<queue>/<stream>/dead-letters`), so a link pasted into a
 * chat opens what the operator saw. Throughput is the change of the monotonic completed/failed
 * counters between two polls over the time between them. Written as plain ES2020 in a string: it
 * runs in the browser untranspiled, and the browser test in test/dashboard-browser.test.ts is what
 * exercises it.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('config').textContent);
  var view = null;
  view = blank();
  var last = {};
  var statusEl = document.getElementById('status');

  function blank() { return { queue: null, state: 'dead', offset: 0, limit: 25, detail: null, search: null, selected: new Set(), dlq: null, dlqSelected: new Set(), ns: null, window: view ? view.window : 60 }; }
  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) for (var k in props) {
      if (props[k] == null) continue;
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
  function link(queue, kind, arg) { return '#/queue/' + enc(queue) + '/' + kind + (arg != null ? '/' + enc(arg) : ''); }

  function api(path, method, body) {
    var init = method ? { method: method, headers: { 'x-echo-dashboard': '1', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) } : undefined;
    return fetch('api/' + path, init).then(function (res) {
      return res.json().then(function (reply) {
        if (!res.ok) throw new Error(reply.message || res.statusText);
        return reply;
      });
    });
  }
  function post(path, body) { return api(path, 'POST', body); }
  function act(path) {
    return function () {
      this.disabled = true;
      post(path).catch(report).then(refresh);
    };
  }
  var sayUntil = 0;
  function say(text) { statusEl.textContent = text; statusEl.className = 'status'; sayUntil = Date.now() + 5000; }
  function report(error) { statusEl.textContent = String(error.message || error); statusEl.className = 'status bad'; }
${JOBS_SCRIPT}
  function route() {
    var parts = location.hash.replace(/^#\/?/, '').split('/').map(function (p) { try { return decodeURIComponent(p); } catch (e) { return p; } });
    var next = blank();
    if (parts[0] === 'queue' && parts[1]) {
      next.queue = parts[1];
      next.state = view.queue === parts[1] ? view.state : 'dead';
      if (parts[2] === 'job' && parts[3]) next.detail = parts[3];
      else if (parts[2] === 'search') next.search = parts.slice(3).join('/');
      else if (STATES.indexOf(parts[2]) >= 0) { next.state = parts[2]; next.offset = Number(parts[3]) || 0; }
    } else if (parts[0] === 'stream' && parts[1] && parts[2]) {
      next.dlq = { queue: parts[1], stream: parts[2] };
    } else if (parts[0] === 'namespace' && parts[1]) {
      next.ns = parts[1];
    }
    view = next;
    document.getElementById('jobs').hidden = !view.queue;
    document.getElementById('queue-extras').hidden = !view.queue;
    document.getElementById('jobs-queue').textContent = view.queue || '';
    document.getElementById('search').value = view.search || '';
    document.getElementById('dead-letters').hidden = !view.dlq;
    document.getElementById('dlq-name').textContent = view.dlq ? view.dlq.queue + '/' + view.dlq.stream : '';
    document.getElementById('namespace').hidden = !view.ns;
    document.getElementById('ns-name').textContent = view.ns || '';
    if (!view.detail) document.getElementById('detail').hidden = true;
    refresh();
  }

  function renderQueues(body) {
    var now = body.at, rows = [];
    document.getElementById('workers').textContent = body.workers == null ? '' : '· ' + body.workers + ' worker connection(s) on the server';
    body.queues.forEach(function (q) {
      var prev = last[q.name], seconds = prev ? (now - prev.at) / 1000 : 0;
      var rate = function (k) { return prev && seconds > 0 ? (Math.max(0, q.counts[k] - prev.counts[k]) / seconds).toFixed(1) : '–'; };
      last[q.name] = { at: now, counts: q.counts };
      var name = el('a', { href: link(q.name, 'dead'), text: q.name });
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

  function renderStreams(body) {
    var rows = [];
    body.streams.forEach(function (s) {
      var groups = s.groups.length ? s.groups : [null];
      groups.forEach(function (g, i) {
        var dlq = i === 0 ? el('a', { href: '#/stream/' + enc(s.queue) + '/' + enc(s.name) + '/dead-letters', text: 'dead letters', 'data-action': 'dead-letters' }) : null;
        rows.push(el('tr', { 'data-stream': s.queue + '/' + s.name },
          td(s.queue), td(s.name), num(s.length), td(s.lastId || ''),
          td(g ? g.name : '(no groups)'), g ? num(g.consumers) : td(''), g ? num(g.pending) : td(''), g ? num(g.lag) : td(''), el('td', null, dlq)));
      });
    });
    fill(document.querySelector('#streams tbody'), rows);
  }

  function renderDeadLetters(body) {
    var base = 'streams/' + enc(view.dlq.queue) + '/' + enc(view.dlq.stream);
    var letters = body.deadLetters, present = {};
    letters.forEach(function (d) { present[d.id] = true; });
    view.dlqSelected.forEach(function (id) { if (!present[id]) view.dlqSelected.delete(id); });
    document.getElementById('dlq-info').textContent = letters.length === 0 ? 'no dead letters' : letters.length + ' dead letter(s), oldest first';
    var redrive = function (target) {
      return function () {
        this.disabled = true;
        post(base + '/redrive', target()).then(function (r) {
          view.dlqSelected.clear();
          say('redriven ' + r.redriven + (r.left ? ', ' + r.left + ' left (entry trimmed or group gone)' : ''));
        }, report).then(refresh);
      };
    };
    var selectedBtn = document.getElementById('redrive-selected');
    var allBtn = document.getElementById('redrive-all');
    selectedBtn.hidden = allBtn.hidden = config.readOnly || letters.length === 0;
    selectedBtn.disabled = view.dlqSelected.size === 0;
    allBtn.disabled = false;
    selectedBtn.onclick = redrive(function () { return { ids: Array.from(view.dlqSelected) }; });
    allBtn.onclick = redrive(function () { return { all: true }; });
    fill(document.querySelector('#dlq-list tbody'), letters.map(function (d) {
      var box = config.readOnly ? null : el('input', { type: 'checkbox', 'data-select': d.id });
      if (box) {
        box.checked = view.dlqSelected.has(d.id);
        box.onchange = function () { if (box.checked) view.dlqSelected.add(d.id); else view.dlqSelected.delete(d.id); selectedBtn.disabled = view.dlqSelected.size === 0; };
      }
      return el('tr', { 'data-letter': d.id }, el('td', null, box), td(d.id), td(d.group), td(d.consumer), num(d.attempts), td(when(d.deadAt)),
        td(d.reason, 'error'), td(JSON.stringify(d.payload), 'payload'));
    }));
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

  function ratioCell(r) { return td(r != null ? (r * 100).toFixed(1) + '%' : '–', 'num'); }
  function renderNamespaces(body) {
    fill(document.querySelector('#namespaces tbody'), body.namespaces.map(function (n) {
      var l = n.local;
      return el('tr', { 'data-namespace': n.name }, el('td', null, el('a', { href: '#/namespace/' + enc(n.name), text: n.name })),
        num(n.entries), num(n.tags), l ? num(l.size) : td(''), l ? num(l.hits) : td(''), l ? num(l.misses) : td(''),
        ratioCell(l && l.hitRatio), ratioCell(l && l.l2HitRatio));
    }));
  }
  function renderNamespace(body) {
    var base = 'namespaces/' + enc(view.ns) + '/delete';
    var drop = function (what) {
      return config.readOnly ? null : el('button', { text: 'delete', 'data-action': what.key != null ? 'delete-key' : 'delete-tag', onclick: function () {
        this.disabled = true;
        post(base, what).then(function (r) { say('deleted ' + r.deleted + ' entr' + (r.deleted === 1 ? 'y' : 'ies')); }, report).then(refresh);
      } });
    };
    document.getElementById('ns-info').textContent = body.total + ' entr' + (body.total === 1 ? 'y' : 'ies') + ' in L2' + (body.total > body.entries.length ? ', the first ' + body.entries.length + ' by key' : '');
    fill(document.querySelector('#ns-entries tbody'), body.entries.map(function (e) {
      return el('tr', { 'data-key': e.key }, td(e.key), td(e.ttlMs == null ? 'no expiry' : Math.round(e.ttlMs / 1000) + ' s', 'num'), el('td', null, drop({ key: e.key })));
    }));
    fill(document.querySelector('#ns-tags tbody'), body.tags.map(function (t) {
      return el('tr', { 'data-tag': t.tag }, td(t.tag), num(t.entries), el('td', null, drop({ tag: t.tag })));
    }));
  }

  var busy = false;
  function refresh() {
    if (busy) return Promise.resolve();
    busy = true;
    var work = [api('queues').then(renderQueues), api('streams').then(renderStreams), api('caches').then(renderCaches), api('namespaces').then(renderNamespaces)];
    if (view.ns) work.push(api('namespaces/' + enc(view.ns)).then(renderNamespace));
    if (view.queue) {
      var q = enc(view.queue), shown = view;
      if (view.search != null) work.push(api('queues/' + q + '/search?q=' + enc(view.search)).then(function (r) { if (view === shown) renderSearch(r); }));
      else work.push(api('queues/' + q + '/jobs?state=' + view.state + '&offset=' + view.offset + '&limit=' + view.limit).then(function (r) { if (view === shown) renderJobs(r); }));
      if (view.detail) work.push(api('queues/' + q + '/jobs/' + enc(view.detail)).then(function (r) { if (view === shown) renderDetail(r); }, function (error) {
        document.getElementById('detail').hidden = true; report(error);
      }));
      work.push(api('queues/' + q + '/schedulers').then(renderSchedulers), api('queues/' + q + '/workers').then(renderWorkers), api('queues/' + q + '/minutes?last=' + view.window).then(renderMinutes));
    }
    if (view.dlq) work.push(api('streams/' + enc(view.dlq.queue) + '/' + enc(view.dlq.stream) + '/dead-letters').then(renderDeadLetters));
    return Promise.all(work).then(function () {
      if (statusEl.className === 'status' && Date.now() > sayUntil) statusEl.textContent = 'updated ' + new Date().toLocaleTimeString('en-GB');
    }, report).then(function () { busy = false; });
  }

  document.getElementById('prev').onclick = function () { location.hash = link(view.queue, view.state, Math.max(0, view.offset - view.limit)); };
  document.getElementById('next').onclick = function () { location.hash = link(view.queue, view.state, view.offset + view.limit); };
  document.getElementById('search-form').onsubmit = function (event) {
    event.preventDefault();
    var text = document.getElementById('search').value.trim();
    location.hash = text ? link(view.queue, 'search', text) : link(view.queue, view.state);
  };
  Array.prototype.forEach.call(document.querySelectorAll('[data-window]'), function (button) {
    button.onclick = function () { view.window = Number(button.getAttribute('data-window')); refresh(); };
  });
  window.addEventListener('hashchange', route);
  route();
  setInterval(refresh, config.pollMs);
})();
`;
