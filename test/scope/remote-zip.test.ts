import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import {
  fetchRemoteZip,
  isRemoteSpecifier,
  localWorkflowPath,
} from '../../src/scope/remote-zip.js';
import { sha256Hex } from '../../src/scope/zip-hash.js';
import { makeZip } from '../helpers/make-zip.js';
import { startServer, type TestServer } from '../helpers/http-server.js';

const ZIP = makeZip([{ name: 'START.sh', content: 'echo "<result>x</result>"\n' }]);
const HASH = sha256Hex(ZIP);
const dir = mkdtempSync(join(tmpdir(), 'raymond-remote-zip-'));
let server: TestServer;
before(async () => {
  server = await startServer((req, res) => {
    if (req.url?.startsWith('/hang/')) return;
    res.end(ZIP);
  });
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('remote zips', () => {
  it('tells URLs from paths', () => {
    assert.ok(isRemoteSpecifier('https://example.org/a.zip'));
    assert.ok(isRemoteSpecifier('HTTP://example.org/a.zip'));
    assert.ok(!isRemoteSpecifier('flows/a.zip'));
    assert.ok(!isRemoteSpecifier('ftp://example.org/a.zip'));
  });

  it('a path is its own local path', async () => {
    assert.equal(await localWorkflowPath('flows/a.zip', dir), 'flows/a.zip');
  });

  it('refuses a URL not named by a hash, without asking the server', async () => {
    const before = server.requests.length;
    const err = await fetchRemoteZip(`${server.url}/flow.zip`, join(dir, 'r1')).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof RaymondError);
    assert.equal(
      formatError(err),
      `${server.url}/flow.zip: a remote workflow must be named by its hash: the URL must end in <64 hex digits of its sha256>.zip`,
    );
    assert.equal(server.requests.length, before);
  });

  it('downloads once into the registry under the lower-case hash, then uses the copy', async () => {
    const registry = join(dir, 'r2');
    const url = `${server.url}/a/${HASH.toUpperCase()}.zip?sig=1`;
    const before = server.requests.length;
    assert.equal(await fetchRemoteZip(url, registry), join(registry, `${HASH}.zip`));
    assert.equal(await fetchRemoteZip(url, registry), join(registry, `${HASH}.zip`));
    assert.equal(server.requests.length, before + 1);
    assert.deepEqual(readdirSync(registry), [`${HASH}.zip`]);
  });

  it('a timeout leaves nothing in the registry', async () => {
    const registry = join(dir, 'r3');
    mkdirSync(registry);
    const err = await fetchRemoteZip(`${server.url}/hang/${HASH}.zip`, registry, 50).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof RaymondError);
    assert.equal(err.code, 'ERR_UNREACHABLE');
    assert.deepEqual(readdirSync(registry), []);
  });

  it('the project .raymond folder holds the registry and gets its .gitignore', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, 'sub'));
    const path = await localWorkflowPath(`${server.url}/${HASH}.zip`, join(project, 'sub'));
    assert.equal(path, join(project, '.raymond', 'registry', `${HASH}.zip`));
    assert.ok(existsSync(join(project, '.raymond', '.gitignore')));
  });
});
