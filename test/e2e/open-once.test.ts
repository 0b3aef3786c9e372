import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { sha256Hex } from '../../src/scope/zip-hash.js';
import { freePort } from '../helpers/browser.js';
import { CLI, Sandbox, sh } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { makeZip } from '../helpers/make-zip.js';

const box = new Sandbox();
const ZIP = makeZip([{ name: 'START.sh', content: sh('echo "<result>once</result>"') }]);
const HASH = sha256Hex(ZIP);

/**
 * Loaded with --import before the CLI: every read of a .zip file is a line
 * in $ZIP_READS. Opening a zip workflow reads it whole (then hashes and
 * extracts it), so the lines count the openings.
 */
const HOOK = `
import { syncBuiltinESMExports } from 'node:module';
import fsp from 'node:fs/promises';
import { appendFileSync } from 'node:fs';
const original = fsp.readFile;
fsp.readFile = function (path, ...rest) {
  if (String(path).endsWith('.zip')) appendFileSync(process.env.ZIP_READS, String(path) + '\\n');
  return original.call(this, path, ...rest);
};
syncBuiltinESMExports();
`;

let server: TestServer;
before(async () => {
  server = await startServer((_req, res) => res.end(ZIP));
});
after(async () => {
  await server.close();
  box.remove();
});

describe('a run command opens its workflow once', () => {
  it('a remote zip run with --inspect, its ask check and its live diagram: fetched once, read once', async () => {
    const hook = join(box.write({ 'hook.mjs': HOOK }), 'hook.mjs');
    const reads = join(box.dir, 'zip-reads');
    const port = await freePort();
    // Not at a terminal: --on-ask is reject, so the run checks the workflow for asks before it starts.
    const run = execa(
      process.execPath,
      [
        '--import',
        pathToFileURL(hook).href,
        CLI,
        `${server.url}/wf/${HASH}.zip`,
        `--inspect=${port}`,
        '--inspect-wait',
        '--workflow-id',
        'once',
        '--no-debug',
      ],
      {
        cwd: box.dir,
        env: { ZIP_READS: reads },
        reject: false,
        timeout: 60_000,
      },
    );
    after(() => run.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      let printed = '';
      run.stderr.on(
        'data',
        (c: Buffer) =>
          (printed += String(c)).includes('waiting for the inspector page') && resolve(),
      );
      void run.then(() =>
        reject(new Error(`raymond ended before waiting for the page:\n${printed}`)),
      );
    });
    const svg = await fetch(`http://localhost:${port}/live/diagram.svg`);
    assert.equal(svg.status, 200);
    assert.match(await svg.text(), /START\.sh/);
    // An open event stream is a viewer: the run starts.
    const events = new AbortController();
    const stream = await fetch(`http://localhost:${port}/live/events`, { signal: events.signal });
    assert.equal(stream.status, 200);
    const r = await run;
    events.abort();
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.equal(r.stdout.trim(), 'once');
    assert.deepEqual(server.requests, [`/wf/${HASH}.zip`], 'downloaded once');
    assert.ok(existsSync(reads));
    assert.equal(
      readFileSync(reads, 'utf8').trim().split('\n').length,
      1,
      `the zip was read (opened) more than once:\n${readFileSync(reads, 'utf8')}`,
    );
  });
});
