/**
 * The server page's script (plain DOM, no library). It lists the
 * workflows with a launch form each, and polls the runs every 2 seconds
 * (`GET /runs?summary=true`: no agents, so a fan-out of thousands stays a
 * small answer). The runs list draws only the rows in view. A 401 shows
 * the login form instead. Every text from the server goes in through
 * textContent, never as HTML.
 */
export const SERVE_INDEX_SCRIPT = String.raw`
'use strict';
const CONFIG = JSON.parse(document.getElementById('serve-config').textContent);
const ROW = 28;
const POLL_MS = 2000;
const ui = { runs: [], fetchedAt: 0, timer: 0 };
const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function money(n) { return '$' + (n || 0).toFixed(n >= 100 ? 0 : 2); }
function duration(s) {
  s = Math.max(0, Math.round(s));
  return (s >= 3600 ? Math.floor(s / 3600) + 'h' : '') + (s >= 60 ? Math.floor((s % 3600) / 60) + 'm' : '') + (s % 60) + 's';
}
function runPage(id) { return CONFIG.runPage.replace('{id}', encodeURIComponent(id)); }

class LoggedOut extends Error {}
function getJson(url) {
  return fetch(url, { cache: 'no-store' }).then((r) => {
    if (r.status === 401) throw new LoggedOut('not logged in');
    if (!r.ok) throw new Error('HTTP ' + r.status);
    return r.json();
  });
}

function connection(state) {
  const c = $('connection');
  c.textContent = state;
  c.className = 'connection ' + (state === 'live' ? 'live' : 'offline');
}

function showLogin() {
  $('login').hidden = false;
  $('content').hidden = true;
  connection('logged out');
  $('token').focus();
}

function field(label, input, hint) {
  const l = el('label', null, label + ' ');
  l.appendChild(input);
  if (hint) l.appendChild(el('div', 'hint', hint));
  return l;
}

function launchForm(w) {
  const form = el('form', 'launch');
  form.dataset.workflow = w.id;
  const h = el('h3', null, w.name + ' ');
  h.appendChild(el('span', 'wid', w.id));
  form.appendChild(h);
  if (w.description) form.appendChild(el('p', 'desc', w.description));
  let input = null;
  if (w.input.mode === 'none') form.appendChild(el('p', 'hint', 'takes no input'));
  else {
    input = el('textarea');
    input.name = 'input';
    input.required = w.input.mode === 'required';
    form.appendChild(field((w.input.label || 'Input') + (input.required ? ' (required)' : ' (optional)'), input, w.input.description));
  }
  const budget = el('input');
  budget.type = 'number'; budget.name = 'budget'; budget.min = '0'; budget.step = 'any';
  budget.placeholder = String(w.default_budget > 0 ? w.default_budget : CONFIG.defaultBudgetUsd);
  const model = el('input');
  model.name = 'model'; model.setAttribute('list', 'models'); model.placeholder = 'default';
  const dir = el('input');
  dir.name = 'working_directory'; dir.placeholder = 'the server\'s';
  const options = el('div', 'options');
  options.append(field('Budget (USD)', budget), field('Model', model), field('Working directory', dir));
  form.appendChild(options);
  const send = el('button', null, 'Start run');
  send.type = 'submit';
  const result = el('div', 'result');
  form.append(send, result);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const body = { workflow_id: w.id };
    if (input && input.value !== '') body.input = input.value;
    if (budget.value !== '') body.budget = Number(budget.value);
    if (model.value.trim() !== '') body.model = model.value.trim();
    if (dir.value.trim() !== '') body.working_directory = dir.value.trim();
    send.disabled = true;
    result.className = 'result';
    result.textContent = 'starting…';
    fetch('/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then((r) => r.json().catch(() => ({})).then((j) => {
        if (r.status === 401) throw new LoggedOut('not logged in');
        if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status));
        result.className = 'result sent';
        result.textContent = 'started ';
        const a = el('a', 'run-link', j.run_id);
        a.href = runPage(j.run_id);
        result.appendChild(a);
        poll();
      }))
      .catch((err) => {
        if (err instanceof LoggedOut) return showLogin();
        result.className = 'result error';
        result.textContent = String(err.message || err);
      })
      .finally(() => { send.disabled = false; });
  });
  return form;
}

function renderWorkflows(list) {
  const box = $('workflows');
  box.textContent = '';
  $('workflow-count').textContent = String(list.length);
  if (list.length === 0) box.appendChild(el('p', 'empty', 'no workflow under the --root folders'));
  for (const w of list) box.appendChild(launchForm(w));
}

// Only the rows in view exist in the page: a server with thousands of runs stays light.
function renderRuns() {
  const box = $('runs');
  const runs = ui.runs;
  $('run-count').textContent = String(runs.length);
  box.querySelector('.empty').hidden = runs.length > 0;
  $('runs-spacer').style.height = runs.length * ROW + 'px';
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
  const last = Math.min(runs.length, first + Math.ceil((box.clientHeight || 400) / ROW) + 10);
  const since = (Date.now() - ui.fetchedAt) / 1000;
  for (const row of Array.from(box.querySelectorAll('.row'))) row.remove();
  for (let i = first; i < last; i++) {
    const r = runs[i];
    const row = el('div', 'row');
    row.style.top = i * ROW + 'px';
    row.dataset.run = r.run_id;
    const link = el('a', 'id', r.run_id);
    link.href = runPage(r.run_id);
    link.title = r.workflow_id + (r.current_state ? ' at ' + r.current_state : '') + (r.agent_count !== undefined ? ', ' + r.agent_count + ' agent(s)' : '');
    const cell = el('span');
    cell.appendChild(link);
    const status = el('span');
    status.appendChild(el('span', 'status ' + r.status, r.status));
    const running = r.status === 'running' || r.status === 'asking';
    row.append(cell, status, el('span', 'cost', money(r.cost_usd) + (r.budget_usd ? ' of ' + money(r.budget_usd) : '')),
      el('span', 'elapsed', duration(r.elapsed_seconds + (running ? since : 0))), el('span', r.pending_asks ? 'asks-pending' : null, String(r.pending_asks || 0)));
    box.appendChild(row);
  }
  box.dataset.rows = String(runs.length);
}

function poll() {
  clearTimeout(ui.timer);
  return getJson('/runs?summary=true').then((runs) => {
    ui.runs = runs;
    ui.fetchedAt = Date.now();
    connection('live');
    renderRuns();
    ui.timer = setTimeout(poll, POLL_MS);
  }).catch((err) => {
    if (err instanceof LoggedOut) return showLogin();
    connection('offline');
    ui.timer = setTimeout(poll, POLL_MS);
  });
}

function start() {
  getJson('/workflows').then((list) => {
    $('login').hidden = true;
    $('content').hidden = false;
    renderWorkflows(list);
    poll();
  }).catch((err) => {
    if (err instanceof LoggedOut) return showLogin();
    connection('offline');
    setTimeout(start, POLL_MS);
  });
}

// The login posts the form itself, so a wrong token is told here rather than as a JSON page.
$('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  $('login-error').textContent = '';
  fetch('/login', { method: 'POST', body: new URLSearchParams({ token: $('token').value }) })
    .then((r) => r.json().catch(() => ({})).then((j) => {
      if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status));
      $('token').value = '';
      start();
    }))
    .catch((err) => { $('login-error').textContent = String(err.message || err); });
});
$('runs').addEventListener('scroll', () => renderRuns());
setInterval(() => { if (!$('content').hidden) renderRuns(); }, 1000);
start();
`;
