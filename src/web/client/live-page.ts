import type { RunEvent } from '../../../machines/run-events.js';
import { CostTable } from '../../../machines/cost-table.js';
import { foldLiveEvent } from '../live-fold.js';
import type { LiveSnapshot } from '../live-snapshot.js';
import { log } from './live-log.js';
import { render, renderDiagram, renderRun, renderAgents, schedule } from './live-render.js';
import { CONFIG, model, ui } from './live-state.js';
import { $, connection } from './page-helpers.js';

/**
 * The live page's script (plain DOM, no library), bundled by esbuild into
 * the page (scripts/bundle.mjs). It loads the snapshot, then folds each
 * event of the stream into its model with the server's own fold
 * (live-fold.ts) and redraws at most every 100 ms. Every text from the run
 * goes in through textContent, never as HTML.
 */

const URLS = CONFIG.urls;
/** raymond serve's envelopes that end a run. */
const ENDS = ['workflow_completed', 'workflow_failed', 'workflow_paused', 'workflow_cancelled'];

/** One event of the stream: into the model, then into the log. */
function apply(e: RunEvent): void {
  foldLiveEvent(model, e);
  if (e.type === 'run.finished') model.finished = true;
  log(e);
}

/** raymond serve's stream: ray's envelopes, the RunEvent riding on the first of each (its 'raymond' field). */
function fromServer(
  source: EventSource,
  data: { type: string; raymond?: RunEvent },
): RunEvent | null {
  // Events the server no longer keeps were missed: start again from a snapshot.
  if (data.type === 'events_lost') {
    source.close();
    void load();
    return null;
  }
  if (data.raymond) return data.raymond;
  // A run that ended before it began has no RunEvent for its end: the snapshot says how it ended.
  if (ENDS.includes(data.type) && !model.finished) {
    source.close();
    void load();
  }
  return null;
}

function listen(): void {
  if (ui.source) ui.source.close();
  const sep = URLS.events.indexOf('?') >= 0 ? '&' : '?';
  const source = new EventSource(
    URLS.events + sep + (CONFIG.serve ? 'last_event_id=' : 'since=') + model.seq,
  );
  ui.source = source;
  source.onopen = () => connection('live');
  source.onmessage = (m: MessageEvent<string>) => {
    const seq = Number(m.lastEventId);
    if (seq && seq <= model.seq) return;
    if (seq) model.seq = seq;
    const data = JSON.parse(m.data) as { type: string; raymond?: RunEvent };
    const e = CONFIG.serve ? fromServer(source, data) : (data as RunEvent);
    if (!e) return;
    apply(e);
    if (data.type === 'workflow_cancelled') model.run.status = 'cancelled';
    schedule();
  };
  // Events the server no longer keeps were missed: start again from a snapshot.
  source.addEventListener('reset', () => {
    source.close();
    void load();
  });
  // EventSource reconnects by itself, sending the last id it saw; the server's stream ends with its run, and then there is nothing to wait for.
  source.onerror = () => {
    if (CONFIG.serve && model.finished) source.close();
    connection(model.finished ? 'ended' : 'reconnecting…');
  };
}

function load(): Promise<void> {
  return fetch(URLS.snapshot, { cache: 'no-store' })
    .then((r) => {
      if (r.status === 401 && CONFIG.serve) {
        location.href = CONFIG.serve.home;
        throw new Error('not logged in');
      }
      return r.json() as Promise<LiveSnapshot | { live: LiveSnapshot }>;
    })
    .then((body) => (CONFIG.serve ? (body as { live: LiveSnapshot }).live : (body as LiveSnapshot)))
    .then((snap) => {
      model.seq = snap.seq;
      model.run = snap.run;
      model.finished = !['starting', 'running'].includes(snap.run.status);
      model.agents = new Map();
      model.order = [];
      for (const a of snap.agents) {
        model.agents.set(a.id, a);
        model.order.push(a.id);
      }
      model.asks = new Map(snap.asks.map((a) => [a.id, a]));
      model.byState = new CostTable(snap.byState);
      model.loaded = true;
      $('log').textContent = '';
      for (const r of snap.recent) log(r.event);
      render();
      if (CONFIG.serve && model.finished) connection('ended');
      else listen();
    })
    .catch(() => {
      connection('offline');
      setTimeout(() => void load(), 2000);
    });
}

function loadDiagram(): Promise<void> {
  if (!URLS.diagram) return Promise.resolve();
  return fetch(URLS.diagram)
    .then((r) => (r.ok ? r.text() : ''))
    .then((svg) => {
      if (!svg) return;
      $('diagram').innerHTML = svg;
      ui.nodes = new Map();
      for (const node of Array.from(
        document.querySelectorAll<SVGGElement>('#diagram .node[data-file]'),
      ))
        ui.nodes.set(node.dataset.file!, node);
      if (model.loaded) renderDiagram();
    })
    .catch(() => {});
}

const cancel = document.getElementById('cancel') as HTMLButtonElement | null;
if (cancel && URLS.cancel) {
  const url = URLS.cancel;
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    cancel.textContent = 'Cancelling…';
    fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
      .then((r) => {
        if (!r.ok) throw new Error('HTTP ' + r.status);
      })
      .catch(() => {
        cancel.disabled = false;
        cancel.textContent = 'Cancel run (failed, again?)';
      });
  });
}
$('agents').addEventListener('scroll', () => renderAgents());
setInterval(() => {
  if (model.loaded && !model.finished) renderRun();
}, 1000);
void loadDiagram().then(load);
