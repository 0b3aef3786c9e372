import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_DOWNLOAD_BYTES } from '../../src/scope/remote-zip.js';
import { sha256Hex } from '../../src/scope/zip-hash.js';
import { makeZip } from '../helpers/make-zip.js';
import { Sandbox, sh, summary } from '../helpers/cli.js';
import { startServer, streamZeros, type TestServer } from '../helpers/http-server.js';

const box = new Sandbox();
const ZIP = makeZip([{ name: 'START.sh', content: sh('echo "<result>remote ran</result>"') }]);
const HASH = sha256Hex(ZIP);
const OTHER = makeZip([{ name: 'START.sh', content: sh('echo "<result>impostor</result>"') }]);
const TEXT = Buffer.from('<html>not a zip</html>');
const REGISTRY = join(box.dir, '.raymond/registry');

let server: TestServer;
before(async () => {
  server = await startServer((req, res) => {
    const [, kind] = (req.url ?? '').split('/');
    if (kind === 'ok') res.end(ZIP);
    else if (kind === 'other') res.end(OTHER);
    else if (kind === 'text') res.end(TEXT);
    else if (kind === 'big') streamZeros(res, MAX_DOWNLOAD_BYTES + 2 ** 20);
    else {
      res.statusCode = 404;
      res.end('no such workflow');
    }
  });
});
after(async () => {
  await server.close();
  box.remove();
});

function listing(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Runs a URL that must be refused: one line, exit 64 (75 for a network failure), no state file, nothing new in the registry. */
async function refused(url: string, code = 64): Promise<string> {
  const states = listing(join(box.dir, '.raymond/state'));
  const registry = listing(REGISTRY);
  const r = await box.run([url]);
  assert.equal(r.code, code, r.stderr);
  assert.match(r.stderr, /^raymond: [^\n]*\n$/, 'one line');
  assert.deepEqual(listing(join(box.dir, '.raymond/state')), states, 'no state file');
  assert.deepEqual(listing(REGISTRY), registry, 'nothing left in the registry');
  return r.stderr;
}

describe('remote zips', () => {
  it('downloads once into .raymond/registry, runs, and a second run uses the copy', async () => {
    const url = `${server.url}/ok/${HASH}.zip`;
    const first = await box.run([url, '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(summary(first).results.main, 'remote ran');
    assert.deepEqual(listing(REGISTRY), [`${HASH}.zip`]);
    const state = box.state(summary(first).workflow_id!);
    assert.equal(
      state.scope.path,
      join(REGISTRY, `${HASH}.zip`),
      'the state file names the cached copy',
    );
    const second = await box.run([url, '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(summary(second).results.main, 'remote ran');
    assert.deepEqual(server.requests, [`/ok/${HASH}.zip`], 'downloaded once');
  });

  it('lint and diagram take the URL too', async () => {
    const url = `${server.url}/ok/${HASH}.zip`;
    const lint = await box.run(['lint', url]);
    assert.equal(lint.code, 0, lint.stderr);
    assert.match(lint.stdout, /0 errors, 0 warnings in 1 state/);
    const diagram = await box.run(['diagram', url]);
    assert.equal(diagram.code, 0, diagram.stderr);
    assert.match(diagram.stdout, /^flowchart/);
  });

  it('a cached copy is hashed again: a changed one is refused, naming it, and not downloaded over', async () => {
    const hash = sha256Hex(Buffer.from('cached bytes'));
    const cached = join(REGISTRY, `${hash}.zip`);
    writeFileSync(cached, OTHER);
    const requests = server.requests.length;
    const line = await refused(`${server.url}/ok/${hash}.zip`);
    assert.equal(
      line,
      `raymond: ${cached}: sha256 mismatch: the name says ${hash} but the archive hashes to ${sha256Hex(OTHER)}; refusing it\n`,
    );
    assert.equal(server.requests.length, requests);
    rmSync(cached);
  });

  it('a URL not named by a hash is refused', async () => {
    const url = `${server.url}/ok/flow.zip`;
    assert.equal(
      await refused(url),
      `raymond: ${url}: a remote workflow must be named by its hash: the URL must end in <64 hex digits of its sha256>.zip\n`,
    );
  });

  it('a 404 is refused', async () => {
    const url = `${server.url}/missing/${sha256Hex(Buffer.from('x'))}.zip`;
    assert.equal(
      await refused(url),
      `raymond: ${url}: download failed: the server answered 404 Not Found\n`,
    );
  });

  it('other bytes under the hash name are refused', async () => {
    const hash = sha256Hex(Buffer.from('the promised bytes'));
    const url = `${server.url}/other/${hash}.zip`;
    assert.equal(
      await refused(url),
      `raymond: ${url}: sha256 mismatch: the name says ${hash} but the archive hashes to ${sha256Hex(OTHER)}; refusing it\n`,
    );
  });

  it('a body that is no zip is refused, even under its own hash', async () => {
    const url = `${server.url}/text/${sha256Hex(TEXT)}.zip`;
    assert.match(await refused(url), /: not a zip archive/);
  });

  it('a body past 64 MiB is refused', async () => {
    const url = `${server.url}/big/${sha256Hex(Buffer.from('big'))}.zip`;
    assert.equal(
      await refused(url),
      `raymond: ${url}: the download is larger than 64 MiB, the most Raymond fetches; refusing it\n`,
    );
  });

  it('a server that is not there is refused as a failure that may pass: exit 75, ERR_UNREACHABLE', async () => {
    const gone = await startServer(() => {});
    await gone.close();
    const url = `${gone.url}/${sha256Hex(Buffer.from('gone'))}.zip`;
    assert.equal(await refused(url, 75), `raymond: ${url}: download failed: ECONNREFUSED\n`);
    const json = await box.run([url, '--json']);
    assert.equal(json.code, 75);
    assert.equal(summary(json).error, `${url}: download failed: ECONNREFUSED`);
    const lint = await box.run(['lint', url, '--json']);
    assert.equal(lint.code, 75, lint.stderr);
    assert.deepEqual(JSON.parse(lint.stdout), {
      error: `${url}: download failed: ECONNREFUSED`,
      code: 'ERR_UNREACHABLE',
    });
  });

  it('goes through the proxy HTTP_PROXY names, unless NO_PROXY names the host', async () => {
    // The proxy answers for any host: the zip's host does not even exist.
    const proxy = await startServer((req, res) =>
      req.url === `http://zips.invalid/ok/${HASH}.zip`
        ? res.end(ZIP)
        : ((res.statusCode = 502), res.end()),
    );
    try {
      const url = `http://zips.invalid/ok/${HASH}.zip`;
      const own = new Sandbox();
      const r = await own.run([url, '--json'], { HTTP_PROXY: proxy.url });
      own.remove();
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'remote ran');
      assert.deepEqual(proxy.requests, [url]);

      const direct = `${server.url}/ok/${HASH}.zip`;
      const bypass = new Sandbox();
      const d = await bypass.run([direct, '--json'], {
        http_proxy: proxy.url,
        NO_PROXY: '127.0.0.1',
      });
      bypass.remove();
      assert.equal(d.code, 0, d.stderr);
      assert.deepEqual(proxy.requests, [url], 'NO_PROXY: not through the proxy');
    } finally {
      await proxy.close();
    }
  });

  it('--resume of a run started from a URL works with the server stopped', async () => {
    const flaky = makeZip([
      {
        name: 'START.sh',
        content: sh(
          '[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || exit 9',
          'echo "<result>resumed</result>"',
        ),
      },
    ]);
    const hash = sha256Hex(flaky);
    const own = await startServer((_req, res) => res.end(flaky));
    const first = await box
      .run([`${own.url}/${hash}.zip`, '--workflow-id', 'rz'])
      .finally(() => own.close());
    assert.equal(first.code, 1, first.stderr);
    writeFileSync(join(box.dir, 'rz.ok'), '');
    const second = await box.run(['--resume', 'rz', '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(summary(second).results.main, 'resumed');
  });

  it('a cross-workflow tag may name a remote zip: it is downloaded once into the registry and called', async () => {
    const url = `${server.url}/ok/${HASH}.zip`;
    const before = server.requests.length;
    const wf = box.write(
      {
        'START.sh': sh(`echo '<call-workflow return="END">${url}</call-workflow>'`),
        'END.sh': sh('echo "<result>called: $RAYMOND_INPUT</result>"'),
      },
      'remote-caller',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'called: remote ran');
    assert.ok(existsSync(join(REGISTRY, `${HASH}.zip`)));
    assert.ok(
      server.requests.length - before <= 1,
      'downloaded at most once (not again if an earlier test cached it)',
    );
  });
});
