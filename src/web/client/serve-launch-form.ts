import type { ServeIndexOptions } from '../page-config.js';
import { el, fill, jsonBody, messageOf } from './page-helpers.js';

/** A workflow as `GET /workflows` lists it (the fields the page reads). */
export interface WorkflowEntry {
  id: string;
  name: string;
  description?: string;
  input: { mode: 'none' | 'optional' | 'required'; label?: string; description?: string };
  default_budget: number;
  /** The backend its markdown states run on: which models and efforts its form offers. */
  backend: string;
}

/** The server refused the request for want of its token: the page shows the login form. */
export class LoggedOut extends Error {}

/** What the launch forms do besides posting: open a run's page, poll the runs, show the login form. */
interface LaunchHooks {
  config: ServeIndexOptions;
  started(): void;
  loggedOut(): void;
}

/** Where a run's page is. */
export function runPage(config: ServeIndexOptions, id: string): string {
  return fill(config.runPage, { id });
}

function field(label: string, input: HTMLElement, hint?: string): HTMLLabelElement {
  const l = el('label', null, label + ' ');
  l.appendChild(input);
  if (hint) l.appendChild(el('div', 'hint', hint));
  return l;
}

/**
 * The datalist of a backend's models, made once and shared by the forms of
 * its workflows; none for a backend the server did not describe.
 */
function modelList(config: ServeIndexOptions, backend: string): string | undefined {
  const models = config.backends[backend]?.models;
  if (!models) return undefined;
  const id = 'models-' + backend;
  if (!document.getElementById(id)) {
    const list = el('datalist');
    list.id = id;
    for (const m of models) {
      const option = el('option');
      option.value = m;
      list.appendChild(option);
    }
    document.body.appendChild(list);
  }
  return id;
}

/** A select of a backend's efforts, its first choice the workflow's own (none sent). */
function effortSelect(config: ServeIndexOptions, backend: string): HTMLSelectElement {
  const select = el('select');
  select.name = 'effort';
  for (const effort of ['', ...(config.backends[backend]?.efforts ?? [])]) {
    const option = el('option', null, effort === '' ? 'default' : effort);
    option.value = effort;
    select.appendChild(option);
  }
  return select;
}

/** A workflow's launch form: its input, budget, model, effort and working directory, posted to `POST /runs`. */
export function launchForm(w: WorkflowEntry, hooks: LaunchHooks): HTMLFormElement {
  const form = el('form', 'launch');
  form.dataset.workflow = w.id;
  const h = el('h3', null, w.name + ' ');
  h.appendChild(el('span', 'wid', w.id));
  form.appendChild(h);
  if (w.description) form.appendChild(el('p', 'desc', w.description));
  let input: HTMLTextAreaElement | null = null;
  if (w.input.mode === 'none') form.appendChild(el('p', 'hint', 'takes no input'));
  else {
    input = el('textarea');
    input.name = 'input';
    input.required = w.input.mode === 'required';
    form.appendChild(
      field(
        (w.input.label || 'Input') + (input.required ? ' (required)' : ' (optional)'),
        input,
        w.input.description,
      ),
    );
  }
  const budget = el('input');
  budget.type = 'number';
  budget.name = 'budget';
  budget.min = '0';
  budget.step = 'any';
  budget.placeholder = String(
    w.default_budget > 0 ? w.default_budget : hooks.config.defaultBudgetUsd,
  );
  const model = el('input');
  model.name = 'model';
  const list = modelList(hooks.config, w.backend);
  if (list) model.setAttribute('list', list);
  model.placeholder = 'default';
  const effort = effortSelect(hooks.config, w.backend);
  const dir = el('input');
  dir.name = 'working_directory';
  dir.placeholder = "the server's";
  const options = el('div', 'options');
  options.append(
    field('Budget (USD)', budget),
    field('Model', model),
    field('Effort', effort),
    field('Working directory', dir),
  );
  form.appendChild(options);
  const send = el('button', null, 'Start run');
  send.type = 'submit';
  const result = el('div', 'result');
  form.append(send, result);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const body: Record<string, string | number> = { workflow_id: w.id };
    if (input && input.value !== '') body.input = input.value;
    if (budget.value !== '') body.budget = Number(budget.value);
    if (model.value.trim() !== '') body.model = model.value.trim();
    if (effort.value !== '') body.effort = effort.value;
    if (dir.value.trim() !== '') body.working_directory = dir.value.trim();
    send.disabled = true;
    result.className = 'result';
    result.textContent = 'starting…';
    fetch('/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
      .then((r) =>
        jsonBody<{ run_id: string }>(r).then((j) => {
          if (r.status === 401) throw new LoggedOut('not logged in');
          if (!r.ok) throw new Error(j.error || 'HTTP ' + r.status);
          result.className = 'result sent';
          result.textContent = 'started ';
          const a = el('a', 'run-link', j.run_id);
          a.href = runPage(hooks.config, j.run_id);
          result.appendChild(a);
          hooks.started();
        }),
      )
      .catch((err: unknown) => {
        if (err instanceof LoggedOut) return hooks.loggedOut();
        result.className = 'result error';
        result.textContent = messageOf(err);
      })
      .finally(() => {
        send.disabled = false;
      });
  });
  return form;
}
