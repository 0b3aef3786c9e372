import { LIVE_SCRIPT } from './live-page-script.js';
import { LIVE_STYLE } from './live-page-style.js';
import type { LivePageConfig, LivePageUrls } from './page-config.js';

/** What the page says it is, and what else it offers. */
export interface LivePageOptions {
  urls: LivePageUrls;
  /** The page's heading: what the user is looking at. */
  heading: string;
  /** A line under the heading (plain text). */
  note?: string;
  /** A link shown in the header, e.g. to the Stately inspector. */
  link?: { href: string; text: string };
  /** Whether asks that take files get an upload input (the endpoint then takes multipart). */
  uploads?: boolean;
  /**
   * Fed by `raymond serve`'s own endpoints: the snapshot's `live` field,
   * the stream's envelopes (their `raymond` field), `?last_event_id=`, and
   * `home`, where a refused request (401, not logged in) sends the page.
   */
  serve?: { home: string };
}

/** Escapes text for HTML content and attribute values. */
function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * The live page of one run: diagram with every agent marked, agents table,
 * cost by state, log, pending asks with answer boxes, a cancel button. One self-contained
 * HTML document (style and script inline) that loads nothing from the
 * network but the URLs it is given.
 */
export function livePageHtml(opts: LivePageOptions): string {
  // JSON in a script element: `<` is escaped so no value can close the element.
  const config = JSON.stringify({
    urls: opts.urls,
    uploads: !!opts.uploads,
    serve: opts.serve ?? null,
  } satisfies LivePageConfig).replace(/</g, '\\u003c');
  const link = opts.link
    ? ` <a id="other-view" href="${escapeHtml(opts.link.href)}">${escapeHtml(opts.link.text)}</a>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.heading)}</title>
<style>${LIVE_STYLE}</style>
</head>
<body>
<header>
<div class="title"><h1 id="heading">${escapeHtml(opts.heading)}</h1>${opts.note ? `<p id="note">${escapeHtml(opts.note)}${link}</p>` : link ? `<p id="note">${link}</p>` : ''}</div>
<div class="run"><span id="run-id">connecting…</span> <span id="run-status" class="status starting">starting</span> <span id="run-cost"></span> <span id="run-budgets" class="denials"></span> <span id="run-elapsed"></span> <span id="run-steps"></span> <span id="run-denials" class="denials"></span> <span id="run-width" class="denials"></span> <span id="connection" class="connection">offline</span>
${opts.urls.cancel ? '<button id="cancel" type="button">Cancel run</button>' : ''}</div>
</header>
<main>
<section id="result-panel" class="panel" hidden><h2>Result</h2><pre id="run-result"></pre></section>
<section id="diagram-panel" class="panel"><h2>Workflow</h2><div id="diagram"><p class="empty">no diagram</p></div></section>
<section id="asks-panel" class="panel"><h2>Waiting for an answer <span id="ask-count" class="count">0</span></h2><div id="asks"><p class="empty">no question pending</p></div></section>
<section id="agents-panel" class="panel"><h2>Agents <span id="agent-count" class="count">0</span></h2>
<div id="chips"></div>
<div class="table-head row"><span>agent</span><span>machine</span><span>state</span><span>depth</span><span>cost</span></div>
<div id="agents"><div id="agents-spacer"></div></div></section>
<section id="costs-panel" class="panel"><h2>Cost by state</h2>
<p id="costs-empty" class="empty">no step has ended yet</p>
<table id="costs" hidden><thead><tr><th>state</th><th>steps</th><th>turns</th><th>cost</th><th>share</th><th>time</th></tr></thead><tbody id="costs-body"></tbody></table></section>
<section id="log-panel" class="panel"><h2>Log</h2><ol id="log"></ol></section>
</main>
<script type="application/json" id="live-config">${config}</script>
<script>${LIVE_SCRIPT}</script>
</body>
</html>
`;
}
