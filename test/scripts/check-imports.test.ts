import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';

const script = new URL('../../scripts/check-imports.mjs', import.meta.url).pathname;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-imports-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function check(files: Record<string, string>) {
  const r = spawnSync(process.execPath, [script, tree(files)], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('scripts/check-imports.mjs', () => {
  it('passes a tree whose imports go down the layers', () => {
    const r = check({
      'machines/a.ts': "import { x } from 'xstate';\n",
      'src/errors.ts': "import type { A } from '../machines/a.js';\n",
      'src/cli/main.ts': "import { e } from '../errors.js';\n",
    });
    assert.equal(r.code, 0, r.out);
  });

  it('refuses an import that runs back up the layers', () => {
    const r = check({
      'machines/a.ts': '',
      'src/errors.ts': '',
      'src/agents/claude/x.ts': "import type { R } from '../../runtime/y.js';\n",
      'src/runtime/y.ts': '',
    });
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /src\/agents\/claude\/x\.ts: imports src\/runtime\/y\.ts, but src\/runtime\/ is above src\/agents\/claude\//,
    );
  });

  it("refuses an import of a backend's folder from anywhere but the registry's list, whatever the backend's name", () => {
    const files = {
      'machines/a.ts': '',
      'src/errors.ts': '',
      'src/agents/agent-backend.ts': '',
      'src/agents/toy/toy-backend.ts':
        "import type { A } from '../agent-backend.js';\nimport { t } from './toy-argv.js';\n",
      'src/agents/toy/toy-argv.ts': '',
      'src/agents/registry/backend-list.ts': "export { TOY } from '../toy/toy-backend.js';\n",
      'src/agents/registry/registry.ts': "import * as listed from './backend-list.js';\n",
    };
    assert.equal(check(files).code, 0, check(files).out);
    const r = check({
      ...files,
      'src/agents/registry/registry.ts': "import { TOY } from '../toy/toy-backend.js';\n",
      'src/runtime/step.ts': "import { t } from '../agents/toy/toy-argv.js';\n",
    });
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /src\/agents\/registry\/registry\.ts: imports src\/agents\/toy\/toy-backend\.ts, but only src\/agents\/registry\/backend-list\.ts imports a backend's folder \(src\/agents\/toy\/\): ask the registry/,
    );
    assert.match(r.out, /src\/runtime\/step\.ts: imports src\/agents\/toy\/toy-argv\.ts, but only/);
  });

  it('refuses a cycle between files of one folder', () => {
    const r = check({
      'machines/a.ts': '',
      'src/errors.ts': '',
      'src/runtime/a.ts': "import { b } from './b.js';\n",
      'src/runtime/b.ts': "export { a } from './a.js';\n",
    });
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /import cycle: src\/runtime\/a\.ts -> src\/runtime\/b\.ts -> src\/runtime\/a\.ts/,
    );
  });

  it('refuses node:* and outside imports in machines/', () => {
    const r = check({
      'machines/a.ts':
        "import { readFileSync } from 'node:fs';\nimport { e } from '../src/errors.js';\n",
      'src/errors.ts': '',
    });
    assert.equal(r.code, 1);
    assert.match(r.out, /machines\/a\.ts: machines\/ must stay pure, but imports 'node:fs'/);
    assert.match(r.out, /machines\/a\.ts: imports src\/errors\.ts, but src\/ is above machines\//);
  });

  it('lets the browser client import its folder, the shared fold and types from machines/', () => {
    const r = check({
      'machines/types.ts': '',
      'src/errors.ts': '',
      'src/web/live-fold.ts': "import type { T } from '../../machines/types.js';\n",
      'src/web/client/page.ts':
        "import { foldLiveEvent } from '../live-fold.js';\nimport type { T } from '../../../machines/types.js';\nimport { el } from './helpers.js';\n",
      'src/web/client/helpers.ts': '',
    });
    assert.equal(r.code, 0, r.out);
  });

  it('refuses node:*, server modules and machines/ values in the browser client, and node:* in what it shares', () => {
    const r = check({
      'machines/types.ts': '',
      'src/errors.ts': '',
      'src/web/live-fold.ts': "import { EventEmitter } from 'node:events';\n",
      'src/web/live-routes.ts': '',
      'src/web/client/page.ts':
        "import { readFileSync } from 'node:fs';\nimport { routes } from '../live-routes.js';\nimport { m } from '../../../machines/types.js';\n",
    });
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /src\/web\/client\/page\.ts: src\/web\/client\/ runs in the browser, but imports 'node:fs'/,
    );
    assert.match(
      r.out,
      /src\/web\/client\/page\.ts: src\/web\/client\/ runs in the browser, but imports src\/web\/live-routes\.ts/,
    );
    assert.match(
      r.out,
      /src\/web\/client\/page\.ts: src\/web\/client\/ runs in the browser, but imports machines\/types\.ts \(only types may come from machines\/\)/,
    );
    assert.match(
      r.out,
      /src\/web\/live-fold\.ts: it is shared with the browser client, but imports 'node:events'/,
    );
  });
});
