import type { AgentAsk } from '../../../machines/types.js';
import { CONFIG, model } from './live-state.js';
import { $, el, fill, jsonBody, messageOf } from './page-helpers.js';

// The pending asks, one answer form each: text, and files when the ask
// takes them and the page can send them.

/** The names of a comma-separated list (an ask's files fields), trimmed, empty ones dropped. */
function names(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A slot is NAME or NAME:TYPES; its form field is the name alone. */
function slotName(entry: string): string {
  return entry.split(':')[0]!.trim();
}

/** A display file is SOURCE or SOURCE:LABEL; the ask's folder has it under its label, else the source's file name. */
function displayName(entry: string): string {
  const parts = entry.split(':');
  return (parts[1] ?? '').trim() || parts[0]!.trim().split(/[/\\]/).pop()!;
}

/** Draws a card for each new pending ask and drops those answered. */
export function renderAsks(): void {
  const box = $('asks');
  $('ask-count').textContent = String(model.asks.size);
  for (const card of Array.from(box.querySelectorAll<HTMLElement>('.ask')))
    if (!model.asks.has(card.dataset.askId!)) card.remove();
  const empty = box.querySelector<HTMLElement>('.empty');
  if (empty) empty.hidden = model.asks.size > 0;
  for (const ask of model.asks.values())
    if (!box.querySelector('.ask[data-ask-id="' + CSS.escape(ask.id) + '"]'))
      box.appendChild(askCard(ask));
}

function fileLinks(ask: AgentAsk, shown: string[]): HTMLElement {
  const p = el('div', 'files', 'files: ');
  shown.forEach((name, i) => {
    if (i) p.append(', ');
    if (CONFIG.urls.askFile) {
      const a = el('a', null, name);
      a.href = fill(CONFIG.urls.askFile, { ask_id: ask.id, path: name });
      a.target = '_blank';
      p.appendChild(a);
    } else p.append(name);
  });
  return p;
}

function uploadInputs(
  files: NonNullable<AgentAsk['files']>,
  uploads: HTMLInputElement[],
): HTMLElement {
  const p = el('div', 'files');
  if (!CONFIG.uploads)
    p.textContent =
      'this question takes files, which this page cannot send: answer it where the run is served';
  else
    for (const slot of files.upload_slots ? names(files.upload_slots).map(slotName) : ['files']) {
      const label = el('label', null, slot + ' ');
      const input = el('input');
      input.type = 'file';
      input.name = slot;
      input.multiple = !files.upload_slots;
      label.appendChild(input);
      p.appendChild(label);
      uploads.push(input);
    }
  return p;
}

function askCard(ask: AgentAsk): HTMLFormElement {
  const card = el('form', 'ask');
  card.dataset.askId = ask.id;
  card.appendChild(
    el(
      'div',
      'who',
      ask.agent_id + ' asks (' + ask.id + ')' + (ask.timeout_at ? ', until ' + ask.timeout_at : ''),
    ),
  );
  card.appendChild(el('pre', 'prompt', ask.prompt));
  const files = ask.files ?? {};
  const shown = names(files.display_files).map(displayName);
  if (shown.length) card.appendChild(fileLinks(ask, shown));
  const uploads: HTMLInputElement[] = [];
  if (files.upload_slots || files.upload_bucket) card.appendChild(uploadInputs(files, uploads));
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
    const chosen = uploads.filter((i) => i.files!.length > 0);
    let body: FormData | string;
    const headers: Record<string, string> = {};
    if (chosen.length) {
      const form = new FormData();
      form.append('response', text.value);
      for (const input of chosen)
        for (const f of Array.from(input.files!)) form.append(input.name, f);
      body = form;
    } else {
      body = JSON.stringify({ response: text.value });
      headers['Content-Type'] = 'application/json';
    }
    fetch(fill(CONFIG.urls.answer, { ask_id: ask.id }), { method: 'POST', headers, body })
      .then((r) =>
        jsonBody(r).then((j) => {
          if (!r.ok) throw new Error(j.error || 'HTTP ' + r.status);
          status.className = 'result sent';
          status.textContent = 'sent; the agent goes on';
        }),
      )
      .catch((err: unknown) => {
        send.disabled = false;
        status.className = 'result error';
        status.textContent = messageOf(err);
      });
  });
  return card;
}
