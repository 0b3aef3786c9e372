/**
 * The live page's script (plain DOM, no library). It loads the snapshot,
 * then applies each event of the stream to its model and redraws at most
 * every 100 ms, so a burst of thousands of events costs one redraw. The
 * agents table draws only the rows in view (virtual scrolling). Every text
 * from the run goes in through textContent, never as HTML.
 */
export const LIVE_SCRIPT = String.raw`
'use strict';
const CONFIG = JSON.parse(document.getElementById('live-config').textContent);
const URLS = CONFIG.urls;
const MACHINES = ['invoking', 'idle', 'asking', 'awaiting-child', 'paused', 'terminated'];
const ROW = 24;
const LOG_MAX = 500;
const model = { seq: 0, run: null, agents: new Map(), order: [], asks: new Map(), finished: false };
const ui = { filter: null, source: null, timer: 0, nodes: null, answered: new Set() };
const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function money(n) { return '$' + (n || 0).toFixed(n >= 100 ? 0 : 2); }
function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return (s >= 3600 ? Math.floor(s / 3600) + 'h' : '') + (s >= 60 ? Math.floor((s % 3600) / 60) + 'm' : '') + (s % 60) + 's';
}
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (all, key) => (key in values ? encodeURIComponent(values[key]) : all));
}

function agent(id, state) {
  let a = model.agents.get(id);
  if (!a) { a = { id, machine: 'idle', state, depth: 0, costUsd: 0 }; model.agents.set(id, a); model.order.push(id); }
  return a;
}

// The same folding as the server's tracker (src/web/live-snapshot.ts), event by event.
function apply(e) {
  const run = model.run;
  switch (e.type) {
    case 'run.started': Object.assign(run, { id: e.workflowId, name: e.name, status: 'running', costUsd: e.totalCostUsd, budgetUsd: e.budgetUsd, startedAt: e.at, steps: 0, denials: 0 }); break;
    case 'permission.denied': run.denials = (run.denials || 0) + 1; break;
    case 'agent.forked': agent(e.id, e.state); break;
    case 'step.started': Object.assign(agent(e.agentId, e.state), { machine: 'invoking', state: e.state, scope: e.scope }); break;
    case 'step.done': {
      const a = agent(e.agentId, e.from);
      a.costUsd += e.costUsd; a.depth = e.depth;
      if (e.to === null) a.machine = 'terminated';
      else Object.assign(a, { machine: e.decision.kind === 'ask' ? 'asking' : e.decision.kind === 'fork' && e.decision.join ? 'awaiting-child' : 'idle', state: e.to });
      if (e.to === null && e.decision.kind === 'result' && e.agentId === 'main') run.result = e.decision.payload;
      run.costUsd = e.totalCostUsd; run.steps++;
      break;
    }
    case 'agent.paused': agent(e.agentId, e.state).machine = 'paused'; run.costUsd = e.totalCostUsd; break;
    case 'agent.joined': Object.assign(agent(e.agentId, e.state), { machine: 'idle', state: e.state }); break;
    case 'agent.failed': Object.assign(agent(e.agentId, e.state), { machine: 'terminated', failed: true }); run.costUsd = e.totalCostUsd; break;
    case 'ask.created': case 'ask.pending': model.asks.set(e.ask.id, e.ask); agent(e.ask.agent_id, e.ask.next).machine = 'asking'; break;
    case 'ask.answered': {
      model.asks.delete(e.askId);
      const a = model.agents.get(e.agentId);
      if (a && a.machine === 'asking') a.machine = 'idle';
      break;
    }
    case 'run.finished': Object.assign(run, { status: e.status === 'running' ? 'stopped' : e.status, costUsd: e.totalCostUsd, elapsedMs: e.elapsedMs, error: e.error }); model.finished = true; break;
  }
  log(e);
}

function logText(e) {
  switch (e.type) {
    case 'run.started': return [(e.resumed ? 'resumed ' : 'started ') + e.workflowId, ''];
    case 'step.done': {
      const d = e.decision;
      const where = e.to === null ? (d.kind === 'result' ? 'result' : 'ended') : e.to;
      const workers = e.workers.length ? ' (+' + e.workers.length + ' worker' + (e.workers.length === 1 ? '' : 's') + ')' : '';
      return ['[' + e.agentId + '] ' + e.from + ' → ' + where + ' <' + d.kind + '>' + workers + (e.costUsd ? ' ' + money(e.costUsd) : ''), ''];
    }
    case 'print': return ['[' + e.agentId + '] ' + e.text, 'print'];
    case 'warning': return ['warning: ' + e.text, 'warning'];
    case 'permission.denied': return ['[' + e.agentId + '] denied: ' + e.shown, 'denied'];
    case 'agent.paused': return ['[' + e.agentId + '] paused at ' + e.state + ': ' + e.failure.message, 'failed'];
    case 'agent.failed': return ['[' + e.agentId + '] failed at ' + e.state + ': ' + e.failure.message, 'failed'];
    case 'agent.joined': return ['[' + e.agentId + '] joined ' + e.workers + ' worker(s); continues at ' + e.state, ''];
    case 'ask.created': case 'ask.pending': return ['[' + e.ask.agent_id + '] asks (' + e.ask.id + '): ' + e.ask.prompt.split('\n')[0], 'ask'];
    case 'ask.answered': return ['[' + e.agentId + '] ' + e.askId + (e.expired ? ' ran out of time' : ' answered'), 'ask'];
    case 'run.finished': return ['run ' + (e.status === 'running' ? 'stopped' : e.status) + (e.error ? ': ' + e.error : '') + ', ' + e.steps + ' steps, ' + money(e.totalCostUsd), e.status === 'completed' ? '' : 'failed'];
  }
  return null;
}

function log(e) {
  const line = logText(e);
  if (!line) return;
  const list = $('log');
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  list.appendChild(el('li', line[1], line[0]));
  while (list.childElementCount > LOG_MAX) list.firstElementChild.remove();
  if (atEnd) list.scrollTop = list.scrollHeight;
}

function schedule() {
  if (!ui.timer) ui.timer = setTimeout(() => { ui.timer = 0; render(); }, 100);
}

function render() {
  renderRun();
  renderDiagram();
  renderChips();
  renderAgents();
  renderAsks();
  document.body.dataset.seq = String(model.seq);
  document.body.dataset.status = model.run.status;
}

function renderRun() {
  const run = model.run;
  $('run-id').textContent = run.id ? (run.name ? run.name + ' (' + run.id + ')' : run.id) : 'waiting for the run to start';
  // While the run goes on, a pending question makes it 'asking', as its agent and the runs list say.
  const shown = !model.finished && model.asks.size > 0 ? 'asking' : run.status;
  const status = $('run-status');
  status.textContent = shown;
  status.className = 'status ' + shown;
  const result = $('result-panel');
  if (run.result !== undefined) { $('run-result').textContent = run.result; result.hidden = false; }
  else result.hidden = true;
  $('run-cost').textContent = money(run.costUsd) + (run.budgetUsd ? ' of ' + money(run.budgetUsd) : '');
  const elapsed = run.elapsedMs !== undefined ? run.elapsedMs : run.startedAt ? Date.now() - run.startedAt : 0;
  $('run-elapsed').textContent = duration(elapsed);
  $('run-steps').textContent = run.steps + (run.steps === 1 ? ' step' : ' steps');
  $('run-denials').textContent = run.denials ? run.denials + (run.denials === 1 ? ' tool call denied' : ' tool calls denied') : '';
  const cancel = $('cancel');
  if (cancel && model.finished) cancel.disabled = true;
}

// Agents per state box (live ones only), with the busiest machine state to colour the box.
function renderDiagram() {
  if (!ui.nodes) return;
  const here = new Map();
  for (const a of model.agents.values()) {
    if (a.machine === 'terminated' || a.scope) continue;
    const h = here.get(a.state) || { n: 0, invoking: 0, asking: 0 };
    h.n++;
    if (a.machine === 'invoking') h.invoking++;
    if (a.machine === 'asking') h.asking++;
    here.set(a.state, h);
  }
  for (const [file, node] of ui.nodes) {
    const h = here.get(file);
    const n = h ? h.n : 0;
    if (node.dataset.agents === String(n)) { if (n === 0) continue; }
    node.dataset.agents = String(n);
    node.classList.toggle('live-here', n > 0);
    node.classList.toggle('live-invoking', !!h && h.invoking > 0);
    node.classList.toggle('live-asking', !!h && h.asking > 0 && h.invoking === 0);
    let badge = node.querySelector('.live-badge');
    if (n === 0) { if (badge) badge.remove(); continue; }
    if (!badge) {
      const b = node.querySelector('rect, polygon').getBBox();
      badge = document.createElementNS('http://www.w3.org/2000/svg', 'g');
      badge.setAttribute('class', 'live-badge');
      const shape = document.createElementNS('http://www.w3.org/2000/svg', 'ellipse');
      const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      for (const e of [shape, t]) { e.setAttribute(e === t ? 'x' : 'cx', String(b.x + b.width - 2)); e.setAttribute(e === t ? 'y' : 'cy', String(b.y + 2)); }
      shape.setAttribute('ry', '11');
      badge.append(shape, t);
      node.appendChild(badge);
    }
    // Wide enough for the count: a fan-out puts thousands of agents in one box.
    badge.firstChild.setAttribute('rx', String(Math.max(11, 5 + 3.7 * String(n).length)));
    badge.lastChild.textContent = String(n);
  }
}

function counts() {
  const c = {};
  for (const m of MACHINES) c[m] = 0;
  for (const a of model.agents.values()) c[a.machine] = (c[a.machine] || 0) + 1;
  return c;
}

function renderChips() {
  const c = counts();
  const chips = $('chips');
  if (chips.childElementCount === 0) {
    for (const m of [null].concat(MACHINES)) {
      const b = el('button', 'chip');
      b.type = 'button';
      b.dataset.machine = m || 'all';
      b.addEventListener('click', () => { ui.filter = m; $('agents').scrollTop = 0; renderChips(); renderAgents(); });
      chips.appendChild(b);
    }
  }
  for (const b of chips.children) {
    const m = b.dataset.machine;
    b.textContent = (m === 'all' ? 'all' : m) + ' ' + (m === 'all' ? model.agents.size : c[m]);
    b.classList.toggle('on', (ui.filter || 'all') === m);
    b.hidden = m !== 'all' && c[m] === 0 && ui.filter !== m;
  }
  $('agent-count').textContent = String(model.agents.size);
}

// Only the rows in view exist in the page: a run of thousands of agents stays light.
function renderAgents() {
  const box = $('agents');
  const list = ui.filter ? model.order.filter((id) => model.agents.get(id).machine === ui.filter) : model.order;
  const spacer = $('agents-spacer');
  spacer.style.height = list.length * ROW + 'px';
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
  const last = Math.min(list.length, first + Math.ceil((box.clientHeight || 300) / ROW) + 10);
  for (const row of Array.from(box.querySelectorAll('.row'))) row.remove();
  for (let i = first; i < last; i++) {
    const a = model.agents.get(list[i]);
    const row = el('div', 'row');
    row.style.top = i * ROW + 'px';
    row.dataset.agent = a.id;
    row.append(el('span', 'id', a.id), el('span', null, ''), el('span', 'state', a.scope ? a.state + ' (' + a.scope + ')' : a.state), el('span', null, String(a.depth)), el('span', null, money(a.costUsd)));
    row.children[1].appendChild(el('span', 'machine ' + a.machine, a.failed ? 'failed' : a.machine));
    box.appendChild(row);
  }
  box.dataset.rows = String(list.length);
}

function renderAsks() {
  const box = $('asks');
  $('ask-count').textContent = String(model.asks.size);
  for (const card of Array.from(box.querySelectorAll('.ask'))) if (!model.asks.has(card.dataset.askId)) card.remove();
  const empty = box.querySelector('.empty');
  if (empty) empty.hidden = model.asks.size > 0;
  for (const ask of model.asks.values()) if (!box.querySelector('.ask[data-ask-id="' + CSS.escape(ask.id) + '"]')) box.appendChild(askCard(ask));
}

function names(value) { return (value || '').split(',').map((s) => s.trim()).filter(Boolean); }
// A slot is NAME or NAME:TYPES; its form field is the name alone.
function slotName(entry) { return entry.split(':')[0].trim(); }
// A display file is SOURCE or SOURCE:LABEL; the ask's folder has it under its label, else the source's file name.
function displayName(entry) {
  const parts = entry.split(':');
  return (parts[1] || '').trim() || parts[0].trim().split(/[\/\\]/).pop();
}

function askCard(ask) {
  const card = el('form', 'ask');
  card.dataset.askId = ask.id;
  card.appendChild(el('div', 'who', ask.agent_id + ' asks (' + ask.id + ')' + (ask.timeout_at ? ', until ' + ask.timeout_at : '')));
  card.appendChild(el('pre', 'prompt', ask.prompt));
  const files = ask.files || {};
  const shown = names(files.display_files).map(displayName);
  if (shown.length) {
    const p = el('div', 'files', 'files: ');
    shown.forEach((name, i) => {
      if (i) p.append(', ');
      if (URLS.askFile) { const a = el('a', null, name); a.href = fill(URLS.askFile, { ask_id: ask.id, path: name }); a.target = '_blank'; p.appendChild(a); }
      else p.append(name);
    });
    card.appendChild(p);
  }
  const uploads = [];
  if (files.upload_slots || files.upload_bucket) {
    const p = el('div', 'files');
    if (!CONFIG.uploads) p.textContent = 'this question takes files, which this page cannot send: answer it where the run is served';
    else for (const slot of files.upload_slots ? names(files.upload_slots).map(slotName) : ['files']) {
      const label = el('label', null, slot + ' ');
      const input = el('input');
      input.type = 'file'; input.name = slot; input.multiple = !files.upload_slots;
      label.appendChild(input); p.appendChild(label); uploads.push(input);
    }
    card.appendChild(p);
  }
  const text = el('textarea');
  text.name = 'response';
  text.placeholder = 'your answer';
  const send = el('button', null, 'Send answer');
  send.type = 'submit';
  const status = el('div', 'result');
  card.append(text, send, status);
  card.addEventListener('submit', (ev) => {
    ev.preventDefault();
    send.disabled = true;
    status.className = 'result';
    status.textContent = 'sending…';
    const chosen = uploads.filter((i) => i.files.length > 0);
    let body;
    const headers = {};
    if (chosen.length) {
      body = new FormData();
      body.append('response', text.value);
      for (const input of chosen) for (const f of input.files) body.append(input.name, f);
    } else {
      body = JSON.stringify({ response: text.value });
      headers['Content-Type'] = 'application/json';
    }
    fetch(fill(URLS.answer, { ask_id: ask.id }), { method: 'POST', headers, body })
      .then((r) => r.json().catch(() => ({})).then((j) => {
        if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status));
        status.className = 'result sent';
        status.textContent = 'sent; the agent goes on';
      }))
      .catch((err) => { send.disabled = false; status.className = 'result error'; status.textContent = String(err.message || err); });
  });
  return card;
}

function connection(state) {
  const c = $('connection');
  c.textContent = state;
  c.className = 'connection ' + (state === 'live' ? 'live' : 'offline');
}

// raymond serve's stream: ray's envelopes, the RunEvent riding on the first of each (its 'raymond' field).
const ENDS = ['workflow_completed', 'workflow_failed', 'workflow_paused', 'workflow_cancelled'];
function fromServer(source, data) {
  // Events the server no longer keeps were missed: start again from a snapshot.
  if (data.type === 'events_lost') { source.close(); load(); return null; }
  if (data.raymond) return data.raymond;
  // A run that ended before it began has no RunEvent for its end: the snapshot says how it ended.
  if (ENDS.includes(data.type) && !model.finished) { source.close(); load(); }
  return null;
}

function listen() {
  if (ui.source) ui.source.close();
  const sep = URLS.events.indexOf('?') >= 0 ? '&' : '?';
  const source = new EventSource(URLS.events + sep + (CONFIG.serve ? 'last_event_id=' : 'since=') + model.seq);
  ui.source = source;
  source.onopen = () => connection('live');
  source.onmessage = (m) => {
    const seq = Number(m.lastEventId);
    if (seq && seq <= model.seq) return;
    if (seq) model.seq = seq;
    const data = JSON.parse(m.data);
    const e = CONFIG.serve ? fromServer(source, data) : data;
    if (!e) return;
    apply(e);
    if (data.type === 'workflow_cancelled') model.run.status = 'cancelled';
    schedule();
  };
  // Events the server no longer keeps were missed: start again from a snapshot.
  source.addEventListener('reset', () => { source.close(); load(); });
  // EventSource reconnects by itself, sending the last id it saw; the server's stream ends with its run, and then there is nothing to wait for.
  source.onerror = () => {
    if (CONFIG.serve && model.finished) source.close();
    connection(model.finished ? 'ended' : 'reconnecting…');
  };
}

function load() {
  return fetch(URLS.snapshot, { cache: 'no-store' }).then((r) => {
    if (r.status === 401 && CONFIG.serve) { location.href = CONFIG.serve.home; throw new Error('not logged in'); }
    return r.json();
  }).then((body) => CONFIG.serve ? body.live : body).then((snap) => {
    model.seq = snap.seq;
    model.run = snap.run;
    model.finished = !['starting', 'running'].includes(snap.run.status);
    model.agents = new Map();
    model.order = [];
    for (const a of snap.agents) { model.agents.set(a.id, a); model.order.push(a.id); }
    model.asks = new Map(snap.asks.map((a) => [a.id, a]));
    $('log').textContent = '';
    for (const r of snap.recent) log(r.event);
    render();
    if (CONFIG.serve && model.finished) connection('ended');
    else listen();
  }).catch(() => { connection('offline'); setTimeout(load, 2000); });
}

function loadDiagram() {
  if (!URLS.diagram) return Promise.resolve();
  return fetch(URLS.diagram).then((r) => (r.ok ? r.text() : '')).then((svg) => {
    if (!svg) return;
    $('diagram').innerHTML = svg;
    ui.nodes = new Map();
    for (const node of document.querySelectorAll('#diagram .node[data-file]')) ui.nodes.set(node.dataset.file, node);
    if (model.run) renderDiagram();
  }).catch(() => {});
}

const cancel = $('cancel');
if (cancel) cancel.addEventListener('click', () => {
  cancel.disabled = true;
  cancel.textContent = 'Cancelling…';
  fetch(URLS.cancel, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); })
    .catch(() => { cancel.disabled = false; cancel.textContent = 'Cancel run (failed, again?)'; });
});
$('agents').addEventListener('scroll', () => renderAgents());
setInterval(() => { if (model.run && !model.finished) renderRun(); }, 1000);
loadDiagram().then(load);
`;
