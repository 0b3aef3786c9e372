import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIVE_SCRIPT } from '../../src/web/live-page-script.js';
import { SERVE_INDEX_SCRIPT } from '../../src/web/serve-index-script.js';
import { serveIndexHtml } from '../../src/web/serve-index-page.js';

describe('serveIndexHtml', () => {
  it('is one document with its script and style inline, loading nothing from elsewhere', () => {
    const html = serveIndexHtml({
      backends: { claude: { models: ['opus', 'sonnet'], efforts: ['low', 'high'] } },
      defaultBudgetUsd: 10,
      runPage: '/ui/runs/{id}',
    });
    assert.match(html, /^<!doctype html>/);
    assert.ok(!/\b(?:src|href)="(?:https?:)?\/\//.test(html), 'no link off the server');
    assert.match(
      html,
      /"backends":\{"claude":\{"models":\["opus","sonnet"\],"efforts":\["low","high"\]\}\}/,
    );
    assert.match(html, /<form id="login-form" method="post" action="\/login">/);
  });

  it('keeps its configuration from closing the script element', () => {
    const html = serveIndexHtml({
      backends: {},
      defaultBudgetUsd: 10,
      runPage: '/ui/runs/{id}</script><script>alert(1)',
    });
    assert.ok(!html.includes('</script><script>alert(1)'));
    assert.match(html, /\\u003c\/script>/);
  });

  it('has scripts that parse (a typo in them breaks the page, not the build)', () => {
    for (const script of [SERVE_INDEX_SCRIPT, LIVE_SCRIPT]) {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling without running is the check
      assert.doesNotThrow(() => new Function(script));
    }
  });
});
