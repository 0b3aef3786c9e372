import { SERVE_INDEX_SCRIPT } from './serve-index-script.js';
import { SERVE_INDEX_STYLE } from './serve-index-style.js';
import type { ServeIndexOptions } from './page-config.js';

/**
 * `raymond serve`'s page at `/`: the workflows, each with a launch form
 * (`POST /runs`), and the runs (`GET /runs?summary=true`, polled), each
 * linking to its run page; the login form when the server wants its
 * token. One self-contained document: nothing is loaded from the network.
 */
export function serveIndexHtml(opts: ServeIndexOptions): string {
  // JSON in a script element: `<` is escaped so no value can close the element.
  const config = JSON.stringify(opts).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>raymond serve</title>
<style>${SERVE_INDEX_STYLE}</style>
</head>
<body>
<header>
<div class="title"><h1 id="heading">raymond serve</h1><p id="note">The workflows this server offers and its runs. API: <a href="/openapi.json">/openapi.json</a></p></div>
<div class="run"><span id="connection" class="connection">connecting…</span></div>
</header>
<section id="login" class="panel" hidden>
<h2>Log in</h2>
<p>This server needs its token (printed by <code>raymond serve</code>, or the one it was given).</p>
<form id="login-form" method="post" action="/login"><label>Token <input id="token" type="password" name="token" autocomplete="current-password" required></label> <button type="submit">Log in</button> <span id="login-error" class="error"></span></form>
</section>
<main id="content" hidden>
<section id="workflows-panel" class="panel"><h2>Workflows <span id="workflow-count" class="count">0</span></h2><div id="workflows"><p class="empty">no workflow under the --root folders</p></div></section>
<section id="runs-panel" class="panel"><h2>Runs <span id="run-count" class="count">0</span></h2>
<div class="table-head row"><span>run</span><span>status</span><span>cost</span><span>elapsed</span><span>asks</span></div>
<div id="runs"><div id="runs-spacer"></div><p class="empty">no run yet</p></div></section>
</main>
<script type="application/json" id="serve-config">${config}</script>
<script>${SERVE_INDEX_SCRIPT}</script>
</body>
</html>
`;
}
