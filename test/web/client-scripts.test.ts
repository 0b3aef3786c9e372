import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientScript, type ClientPage } from '../../src/web/client-scripts.js';

const PAGES: ClientPage[] = ['live-page', 'serve-index', 'diagram-page'];

describe("clientScript (the pages' scripts, built from src/web/client/)", () => {
  it('gives each page one classic script that parses, imports nothing and leaves no global behind', () => {
    for (const page of PAGES) {
      const script = clientScript(page);
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- parsing the script as a classic script is the check
      assert.doesNotThrow(() => new Function(script), page);
      assert.doesNotMatch(script, /^\s*(?:import|export)\s/m, `${page}: no module syntax left`);
      assert.match(script, /^"use strict";\n\(\(\) => \{/, `${page}: wrapped in one function`);
    }
  });

  it('keeps every script inlinable: no "</script" in it', () => {
    for (const page of PAGES) assert.ok(!/<\/script/i.test(clientScript(page)), page);
  });

  it("bundles the server's own fold into the live page, and the one helpers module into every page", () => {
    assert.match(clientScript('live-page'), /\/\/ src\/web\/live-fold\.ts\n/);
    for (const page of PAGES) {
      assert.match(clientScript(page), /\/\/ src\/web\/client\/page-helpers\.ts\n/, page);
      assert.equal(
        clientScript(page).match(/function money\(/g)?.length ?? 0,
        page === 'diagram-page' ? 0 : 1,
        `${page}: one money()`,
      );
    }
  });
});
