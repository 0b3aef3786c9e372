import type { ServeIndexOptions } from '../page-config.js';
import {
  $,
  connection,
  duration,
  el,
  jsonBody,
  messageOf,
  money,
  readConfig,
} from './page-helpers.js';
import { launchForm, LoggedOut, runPage, type WorkflowEntry } from './serve-launch-form.js';

/**
 * The server page's script (plain DOM, no library), bundled by esbuild
 * into the page (scripts/bundle.mjs). It lists the workflows with a launch
 * form each, and polls the runs every 2 seconds (`GET /runs?summary=true`:
 * no agents, so a fan-out of thousands stays a small answer). The runs
 * list draws only the rows in view. A 401 shows the login form instead.
 * Every text from the server goes in through textContent, never as HTML.
 */

/** A run as `GET /runs?summary=true` lists it (the fields the page reads). */
interface RunSummary {
  run_id: string;
  workflow_id: string;
  status: string;
  current_state?: string;
  agent_count?: number;
  cost_usd: number;
  budget_usd?: number;
  elapsed_seconds: number;
  pending_asks?: number;
}

const CONFIG = readConfig<ServeIndexOptions>('serve-config');
/** Height of a row of the runs table, in pixels (the stylesheet's). */
const ROW = 28;
const POLL_MS = 2000;
const ui = { runs: [] as RunSummary[], fetchedAt: 0, timer: 0 };

function getJson<T>(url: string): Promise<T> {
  return fetch(url, { cache: 'no-store' }).then((r) => {
    if (r.status === 401) throw new LoggedOut('not logged in');
    if (!r.ok) throw new Error('HTTP ' + r.status);
    return r.json() as Promise<T>;
  });
}

function showLogin(): void {
  $('login').hidden = false;
  $('content').hidden = true;
  connection('logged out');
  $('token').focus();
}

function renderWorkflows(list: WorkflowEntry[]): void {
  const box = $('workflows');
  box.textContent = '';
  $('workflow-count').textContent = String(list.length);
  if (list.length === 0) box.appendChild(el('p', 'empty', 'no workflow under the --root folders'));
  for (const w of list)
    box.appendChild(
      launchForm(w, { config: CONFIG, started: () => void poll(), loggedOut: showLogin }),
    );
}

/** The runs table. Only the rows in view exist in the page: a server with thousands of runs stays light. */
function renderRuns(): void {
  const box = $('runs');
  const runs = ui.runs;
  $('run-count').textContent = String(runs.length);
  box.querySelector<HTMLElement>('.empty')!.hidden = runs.length > 0;
  $('runs-spacer').style.height = runs.length * ROW + 'px';
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
  const last = Math.min(runs.length, first + Math.ceil((box.clientHeight || 400) / ROW) + 10);
  const since = (Date.now() - ui.fetchedAt) / 1000;
  for (const row of Array.from(box.querySelectorAll('.row'))) row.remove();
  for (let i = first; i < last; i++) {
    const r = runs[i]!;
    const row = el('div', 'row');
    row.style.top = i * ROW + 'px';
    row.dataset.run = r.run_id;
    const link = el('a', 'id', r.run_id);
    link.href = runPage(CONFIG, r.run_id);
    link.title =
      r.workflow_id +
      (r.current_state ? ' at ' + r.current_state : '') +
      (r.agent_count !== undefined ? ', ' + r.agent_count + ' agent(s)' : '');
    const cell = el('span');
    cell.appendChild(link);
    const status = el('span');
    status.appendChild(el('span', 'status ' + r.status, r.status));
    const running = r.status === 'running' || r.status === 'asking';
    const cost = el(
      'span',
      'cost',
      money(r.cost_usd) + (r.budget_usd ? ' of ' + money(r.budget_usd) : ''),
    );
    const elapsed = el('span', 'elapsed', duration(r.elapsed_seconds + (running ? since : 0)));
    row.append(
      cell,
      status,
      cost,
      elapsed,
      el('span', r.pending_asks ? 'asks-pending' : null, String(r.pending_asks || 0)),
    );
    box.appendChild(row);
  }
  box.dataset.rows = String(runs.length);
}

function poll(): Promise<void> {
  clearTimeout(ui.timer);
  return getJson<RunSummary[]>('/runs?summary=true')
    .then((runs) => {
      ui.runs = runs;
      ui.fetchedAt = Date.now();
      connection('live');
      renderRuns();
      ui.timer = window.setTimeout(() => void poll(), POLL_MS);
    })
    .catch((err: unknown) => {
      if (err instanceof LoggedOut) return showLogin();
      connection('offline');
      ui.timer = window.setTimeout(() => void poll(), POLL_MS);
    });
}

function start(): void {
  getJson<WorkflowEntry[]>('/workflows')
    .then((list) => {
      $('login').hidden = true;
      $('content').hidden = false;
      renderWorkflows(list);
      void poll();
    })
    .catch((err: unknown) => {
      if (err instanceof LoggedOut) return showLogin();
      connection('offline');
      setTimeout(start, POLL_MS);
    });
}

// The login posts the form itself, so a wrong token is told here rather than as a JSON page.
$('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  $('login-error').textContent = '';
  const token = $<HTMLInputElement>('token');
  fetch('/login', { method: 'POST', body: new URLSearchParams({ token: token.value }) })
    .then((r) =>
      jsonBody(r).then((j) => {
        if (!r.ok) throw new Error(j.error || 'HTTP ' + r.status);
        token.value = '';
        start();
      }),
    )
    .catch((err: unknown) => {
      $('login-error').textContent = messageOf(err);
    });
});
$('runs').addEventListener('scroll', () => renderRuns());
setInterval(() => {
  if (!$('content').hidden) renderRuns();
}, 1000);
start();
