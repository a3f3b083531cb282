/**
 * The job half of the page's script (see client-script.ts, which wraps both halves in one function
 * scope): the state tabs, the job list with its selection and bulk actions, search, the job page
 * with its attempt timeline, and the queue's schedulers, workers and per-minute counts.
 */
export const JOBS_SCRIPT = String.raw`
  var STATES = ['pending', 'scheduled', 'active', 'dead', 'completed', 'failed'];
  var BULK = { pending: ['remove'], scheduled: ['promote', 'remove'], dead: ['retry', 'remove'], failed: ['retry', 'remove'], completed: ['remove'], search: ['retry', 'remove'] };

  function duration(ms) { return ms == null ? '' : ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s'; }

  function renderStates(counts) {
    fill(document.getElementById('states'), STATES.map(function (s) {
      var n = counts[s];
      var label = s === 'failed' ? 'failed (retained)' : s;
      // completed/failed counts are all-time counters, not what the tab lists: the tab shows its own total.
      var text = s === 'completed' || s === 'failed' ? label : label + ' (' + n + ')';
      return el('a', { href: link(view.queue, s), text: text, className: 'tab' + (s === view.state && !view.search ? ' on' : ''), 'data-state': s });
    }));
  }

  function renderSelectionBar(state) {
    var bar = document.getElementById('bulk');
    var actions = config.readOnly ? [] : (BULK[state] || []);
    bar.hidden = actions.length === 0;
    fill(bar, [el('span', { id: 'selected-count', text: view.selected.size + ' selected' })].concat(actions.map(function (a) {
      return el('button', { text: a + ' selected', 'data-bulk': a, disabled: view.selected.size === 0 ? 'disabled' : null, onclick: function () {
        var ids = Array.from(view.selected);
        this.disabled = true;
        post('queues/' + enc(view.queue) + '/bulk', { action: a, ids: ids }).then(function (r) {
          view.selected.clear();
          say(a + ': ' + r.done + ' done' + (r.refused ? ', ' + r.refused + ' refused (' + r.outcomes.filter(function (o) { return !o.ok; }).map(function (o) { return o.error; }).join(', ') + ')' : ''));
        }, report).then(refresh);
      } });
    })));
  }

  function jobRow(job, state, match) {
    var q = enc(view.queue);
    var box = config.readOnly ? null : el('input', { type: 'checkbox', 'data-select': job.id });
    if (box) {
      box.checked = view.selected.has(job.id);
      box.onchange = function () { if (box.checked) view.selected.add(job.id); else view.selected.delete(job.id); renderSelectionBar(view.search ? 'search' : state); };
    }
    var buttons = el('td');
    if (!config.readOnly && (state === 'dead' || state === 'failed')) {
      buttons.appendChild(el('button', { text: 'retry', 'data-action': 'retry', onclick: act('queues/' + q + '/jobs/' + job.id + '/retry') }));
      buttons.appendChild(el('button', { text: 'remove', 'data-action': 'remove', onclick: act('queues/' + q + '/jobs/' + job.id + '/remove') }));
    }
    return el('tr', { 'data-job': job.id },
      el('td', null, box),
      el('td', null, el('a', { href: link(view.queue, 'job', job.id), text: job.id })),
      td(job.name || '', 'name'), td(job.key || '', 'key'), td(match || job.position, 'state'), num(job.attempts), td(when(job.finishedAt != null ? job.finishedAt : job.at)),
      td(job.payload, 'payload'), td(job.lastError, 'error'), buttons);
  }

  function renderJobs(page) {
    document.getElementById('page-info').textContent = page.total === 0 ? 'no ' + page.state + ' jobs'
      : (page.offset + 1) + '–' + (page.offset + page.jobs.length) + ' of ' + page.total;
    document.getElementById('prev').disabled = page.offset === 0;
    document.getElementById('next').disabled = page.offset + page.jobs.length >= page.total;
    var retryAll = document.getElementById('retry-all');
    retryAll.hidden = config.readOnly || page.state !== 'dead' || page.total === 0;
    retryAll.disabled = false;
    retryAll.onclick = act('queues/' + enc(view.queue) + '/retry-dead');
    var shown = {};
    page.jobs.forEach(function (j) { shown[j.id] = true; });
    view.selected.forEach(function (id) { if (!shown[id]) view.selected.delete(id); });
    renderSelectionBar(page.state);
    fill(document.querySelector('#job-list tbody'), page.jobs.map(function (job) { return jobRow(job, page.state); }));
  }

  function renderSearch(result) {
    document.getElementById('page-info').textContent = result.hits.length + ' found for "' + result.query + '"'
      + (result.truncated ? ' (by name: the first ' + result.scanned + ' jobs read)' : '');
    document.getElementById('prev').disabled = true;
    document.getElementById('next').disabled = true;
    document.getElementById('retry-all').hidden = true;
    renderSelectionBar('search');
    fill(document.querySelector('#job-list tbody'), result.hits.map(function (h) { return jobRow(h.job, h.job.position, h.match); }));
  }

  function timeline(history) {
    if (!history.length) return el('p', { className: 'note', text: 'No attempt history: the queue records it when asked (queue.setEvents({ history: 20 })).' });
    return el('table', { 'data-testid': 'timeline' },
      el('thead', null, el('tr', null, el('th', { text: '#' }), el('th', { text: 'started' }), el('th', { text: 'ended' }),
        el('th', { text: 'took', className: 'num' }), el('th', { text: 'outcome' }), el('th', { text: 'error' }))),
      el.apply(null, ['tbody', null].concat(history.map(function (a) {
        return el('tr', { 'data-attempt': String(a.attempt) }, num(a.attempt), td(when(a.startedAt)), td(when(a.endedAt)),
          td(duration(a.durationMs), 'num'), td(a.outcome || 'running', 'outcome ' + (a.outcome || 'running')), td(a.error, 'error'));
      }))));
  }

  function renderDetail(job) {
    var box = document.getElementById('detail');
    box.hidden = false;
    var pretty = job.payload;
    try { pretty = JSON.stringify(JSON.parse(job.payload), null, 2); } catch (e) { /* not JSON: shown as stored */ }
    var s = job.schedulerInfo;
    fill(box, [
      el('h2', { text: 'Job ' + job.id + (job.name ? ' · ' + job.name : '') + ' · ' + job.position + ' · attempt ' + job.attempts + (job.stalled ? ' · stalled ' + job.stalled : '') }),
      el('p', { className: 'note', text: 'link: ' + location.href }),
      job.key ? el('p', { text: 'business key: ' + job.key }) : null,
      job.finishedAt != null ? el('p', { text: 'finished: ' + when(job.finishedAt) }) : null,
      job.scheduler ? el('p', { 'data-testid': 'scheduler', text: 'from scheduler ' + job.scheduler + (s ? ' (' + s.pattern + '; next run ' + when(s.next) + (s.lastRunAt ? ', last run ' + when(s.lastRunAt) : '') + ')' : ' (removed since)') }) : null,
      job.lastError ? el('p', { className: 'error', text: 'last error: ' + job.lastError }) : null,
      job.progress ? el('p', { text: 'progress: ' + job.progress }) : null,
      job.lane ? el('p', { text: 'lane: ' + job.lane }) : null,
      el('strong', { text: 'attempts' }), timeline(job.history),
      job.result !== null ? el('strong', { text: 'result' }) : null,
      job.result !== null ? el('pre', { 'data-testid': 'result', text: typeof job.result === 'string' ? job.result : JSON.stringify(job.result, null, 2) }) : null,
      el('strong', { text: 'payload' }), el('pre', { 'data-testid': 'payload', text: pretty }),
      el('strong', { text: 'logs (' + job.logs.length + ')' }), el('pre', { 'data-testid': 'logs', text: job.logs.join('\n') || '(none)' }),
    ].filter(Boolean));
  }

  function renderSchedulers(body) {
    var section = document.getElementById('schedulers');
    section.hidden = body.schedulers.length === 0;
    fill(section.querySelector('tbody'), body.schedulers.map(function (s) {
      var remove = config.readOnly ? null : el('button', { text: 'remove', 'data-action': 'remove-scheduler', onclick: act('queues/' + enc(view.queue) + '/schedulers/' + enc(s.id) + '/remove') });
      return el('tr', { 'data-scheduler': s.id }, td(s.id), td(s.pattern), td(when(s.next)), td(when(s.lastRunAt)),
        el('td', null, s.lastJob ? el('a', { href: link(view.queue, 'job', s.lastJob), text: s.lastJob }) : null), num(s.count), el('td', null, remove));
    }));
  }

  function renderWorkers(body) {
    document.getElementById('queue-workers').textContent = body.workers.length === 0 ? 'no live workers'
      : body.workers.length + ' live worker(s): ' + body.workers.map(function (w) { return w.name + ' (' + w.active + '/' + w.concurrency + ')'; }).join(', ');
  }

  function renderMinutes(body) {
    var minutes = body.minutes, top = 1, failed = 0, done = 0;
    minutes.forEach(function (m) { top = Math.max(top, m.completed, m.failed); failed += m.failed; done += m.completed; });
    Array.prototype.forEach.call(document.querySelectorAll('[data-window]'), function (b) { b.className = Number(b.getAttribute('data-window')) === minutes.length ? 'on' : ''; });
    document.getElementById('minutes-total').textContent = done + ' completed, ' + failed + ' failed attempts in the last ' + minutes.length + ' minutes'
      + (done + failed === 0 ? ' (counted when the queue asks: queue.setEvents({ minutes: 180 }))' : '');
    fill(document.getElementById('minutes'), minutes.map(function (m) {
      var title = when(m.at).slice(11, 16) + ' · ' + m.completed + ' completed · ' + m.failed + ' failed';
      return el('span', { className: 'minute', title: title, 'data-failed': String(m.failed), 'data-completed': String(m.completed) },
        el('i', { className: 'done', style: 'height:' + Math.round(30 * m.completed / top) + 'px' }),
        el('i', { className: 'fail', style: 'height:' + Math.round(30 * m.failed / top) + 'px' }));
    }));
  }
`;
