import { model } from './live-state.js';
import { $, el, money, wallTime } from './page-helpers.js';

// The run's cost by state, as `raymond --status` and `GET /runs/{id}` give
// it: one row per state (a callee's as `<workflow>:<state>`), dearest first.
// A run has a few dozen states at most, so the table is redrawn whole.

/** The cost-by-state table: state, steps, turns, cost, share of the run's cost, wall time. */
export function renderCosts(): void {
  const rows = model.byState.rows(model.run.costUsd);
  const body = $('costs-body');
  body.textContent = '';
  for (const r of rows) {
    const tr = el('tr');
    tr.dataset.state = r.name;
    tr.append(
      el('td', 'state', r.name),
      el('td', null, String(r.steps)),
      el('td', null, String(r.turns)),
      el('td', null, money(r.costUsd)),
      el('td', null, Math.round(r.share * 100) + '%'),
      el('td', null, wallTime(r.wallMs)),
    );
    body.appendChild(tr);
  }
  $('costs').hidden = rows.length === 0;
  $('costs-empty').hidden = rows.length > 0;
}
