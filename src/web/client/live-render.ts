import type { RunBudgets } from '../../../machines/budget-figures.js';
import { liveBudgets } from '../live-fold.js';
import { renderAsks } from './live-asks.js';
import { renderCosts } from './live-costs.js';
import { MACHINES, model, ui } from './live-state.js';
import { $, duration, el, money } from './page-helpers.js';

// Drawing the live page from its model. The events only fold into the model;
// a redraw comes at most every 100 ms, so a burst of thousands of events
// costs one redraw.

/** Height of a row of the agents table, in pixels (the stylesheet's). */
const ROW = 24;
const SVG = 'http://www.w3.org/2000/svg';

/** Asks for a redraw within 100 ms, unless one is already due. */
export function schedule(): void {
  if (!ui.timer)
    ui.timer = window.setTimeout(() => {
      ui.timer = 0;
      render();
    }, 100);
}

/** Redraws everything, and says in the body's data which event it shows (the tests wait on it). */
export function render(): void {
  renderRun();
  renderDiagram();
  renderChips();
  renderAgents();
  renderAsks();
  renderCosts();
  document.body.dataset.seq = String(model.seq);
  document.body.dataset.status = model.run.status;
}

/** The header: the run, its status, cost, time, steps, denials and narrowed widths. */
export function renderRun(): void {
  const run = model.run;
  $('run-id').textContent = run.id
    ? run.name
      ? run.name + ' (' + run.id + ')'
      : run.id
    : 'waiting for the run to start';
  // While the run goes on, a pending question makes it 'asking', as its agent and the runs list say.
  const shown = !model.finished && model.asks.size > 0 ? 'asking' : run.status;
  const status = $('run-status');
  status.textContent = shown;
  status.className = 'status ' + shown;
  const result = $('result-panel');
  if (run.result !== undefined) {
    $('run-result').textContent = run.result;
    result.hidden = false;
  } else result.hidden = true;
  $('run-cost').textContent =
    money(run.costUsd) + (run.budgetUsd ? ' of ' + money(run.budgetUsd) : '');
  $('run-budgets').textContent = budgetsText(liveBudgets(model));
  const elapsed =
    run.elapsedMs !== undefined ? run.elapsedMs : run.startedAt ? Date.now() - run.startedAt : 0;
  $('run-elapsed').textContent = duration(elapsed / 1000);
  $('run-steps').textContent = run.steps + (run.steps === 1 ? ' step' : ' steps');
  $('run-denials').textContent = run.denials
    ? run.denials + (run.denials === 1 ? ' tool call denied' : ' tool calls denied')
    : '';
  $('run-width').textContent = run.widths ? Object.values(run.widths).join('; ') : '';
  const cancel = document.getElementById('cancel') as HTMLButtonElement | null;
  if (cancel && model.finished) cancel.disabled = true;
}

/** The budgets beside the cost: what the running steps reserved and what is left, then each branch's. */
function budgetsText(b: RunBudgets): string {
  const parts: string[] = [];
  if (b.run)
    parts.push('reserved ' + money(b.run.reserved_usd) + ', ' + money(b.run.left_usd) + ' left');
  for (const x of b.branches)
    parts.push(
      'branch ' +
        x.branch +
        ': ' +
        money(x.spent_usd) +
        ' of ' +
        money(x.budget_usd) +
        ', ' +
        money(x.left_usd) +
        ' left',
    );
  return parts.join('; ');
}

/** Agents per state box (live ones only), with the busiest machine state to colour the box. */
export function renderDiagram(): void {
  if (!ui.nodes) return;
  const here = new Map<string, { n: number; invoking: number; asking: number }>();
  for (const a of model.agents.values()) {
    if (a.machine === 'terminated' || a.scope) continue;
    const h = here.get(a.state) ?? { n: 0, invoking: 0, asking: 0 };
    h.n++;
    if (a.machine === 'invoking') h.invoking++;
    if (a.machine === 'asking') h.asking++;
    here.set(a.state, h);
  }
  for (const [file, node] of ui.nodes) {
    const h = here.get(file);
    const n = h ? h.n : 0;
    if (node.dataset.agents === String(n) && n === 0) continue;
    node.dataset.agents = String(n);
    node.classList.toggle('live-here', n > 0);
    node.classList.toggle('live-invoking', !!h && h.invoking > 0);
    node.classList.toggle('live-asking', !!h && h.asking > 0 && h.invoking === 0);
    let badge = node.querySelector('.live-badge');
    if (n === 0) {
      if (badge) badge.remove();
      continue;
    }
    if (!badge) {
      const b = node.querySelector<SVGGraphicsElement>('rect, polygon')!.getBBox();
      badge = document.createElementNS(SVG, 'g');
      badge.setAttribute('class', 'live-badge');
      const shape = document.createElementNS(SVG, 'ellipse');
      const t = document.createElementNS(SVG, 'text');
      shape.setAttribute('cx', String(b.x + b.width - 2));
      shape.setAttribute('cy', String(b.y + 2));
      t.setAttribute('x', String(b.x + b.width - 2));
      t.setAttribute('y', String(b.y + 2));
      shape.setAttribute('ry', '11');
      badge.append(shape, t);
      node.appendChild(badge);
    }
    // Wide enough for the count: a fan-out puts thousands of agents in one box.
    (badge.firstChild as SVGEllipseElement).setAttribute(
      'rx',
      String(Math.max(11, 5 + 3.7 * String(n).length)),
    );
    badge.lastChild!.textContent = String(n);
  }
}

function counts(): Record<string, number> {
  const c: Record<string, number> = {};
  for (const m of MACHINES) c[m] = 0;
  for (const a of model.agents.values()) c[a.machine] = (c[a.machine] ?? 0) + 1;
  return c;
}

/** The filter chips: one per machine state with agents in it, with its count. */
export function renderChips(): void {
  const c = counts();
  const chips = $('chips');
  if (chips.childElementCount === 0) {
    for (const m of [null, ...MACHINES]) {
      const b = el('button', 'chip');
      b.type = 'button';
      b.dataset.machine = m ?? 'all';
      b.addEventListener('click', () => {
        ui.filter = m;
        $('agents').scrollTop = 0;
        renderChips();
        renderAgents();
      });
      chips.appendChild(b);
    }
  }
  for (const b of Array.from(chips.children) as HTMLElement[]) {
    const m = b.dataset.machine!;
    b.textContent = (m === 'all' ? 'all' : m) + ' ' + (m === 'all' ? model.agents.size : c[m]);
    b.classList.toggle('on', (ui.filter ?? 'all') === m);
    b.hidden = m !== 'all' && c[m] === 0 && ui.filter !== m;
  }
  $('agent-count').textContent = String(model.agents.size);
}

/** The agents table. Only the rows in view exist in the page: a run of thousands of agents stays light. */
export function renderAgents(): void {
  const box = $('agents');
  const list = ui.filter
    ? model.order.filter((id) => model.agents.get(id)!.machine === ui.filter)
    : model.order;
  $('agents-spacer').style.height = list.length * ROW + 'px';
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
  const last = Math.min(list.length, first + Math.ceil((box.clientHeight || 300) / ROW) + 10);
  for (const row of Array.from(box.querySelectorAll('.row'))) row.remove();
  for (let i = first; i < last; i++) {
    const a = model.agents.get(list[i]!)!;
    const row = el('div', 'row');
    row.style.top = i * ROW + 'px';
    row.dataset.agent = a.id;
    const machine = el('span', null, '');
    machine.appendChild(el('span', 'machine ' + a.machine, a.failed ? 'failed' : a.machine));
    row.append(
      el('span', 'id', a.id),
      machine,
      el('span', 'state', a.scope ? a.state + ' (' + a.scope + ')' : a.state),
      el('span', null, String(a.depth)),
      el('span', null, money(a.costUsd)),
    );
    box.appendChild(row);
  }
  box.dataset.rows = String(list.length);
}
