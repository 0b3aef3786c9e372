import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sha256 } from '../../src/queue/blob-store.js';
import { receiveFolder, sendFolder, type FolderManifest } from '../../src/queue/workflow-files.js';
import { NO_REDIS } from '../helpers/redis.js';
import { rejection, useRedisBlobs } from '../helpers/redis-blobs.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-wf-files-'));
const ctx = useRedisBlobs();
after(() => rmSync(root, { recursive: true, force: true }));

/** A folder with these files (path → content; a path ending in `*` is made executable). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'src-'));
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name.replace(/\*$/, ''));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    chmodSync(path, name.endsWith('*') ? 0o755 : 0o644);
  }
  return dir;
}

/** Every file under a folder, relative, sorted. */
function list(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? list(dir, join(rel, e.name)) : [join(rel, e.name)]))
    .sort();
}

const isExec = (path: string) => (statSync(path).mode & 0o111) !== 0;

/** Stores a hand-made manifest, as a forger with Redis access could. */
async function putManifest(files: FolderManifest['files']): Promise<string> {
  return ctx.blobs.put(Buffer.from(JSON.stringify({ files })));
}

describe('sendFolder / receiveFolder (against a real redis-server)', () => {
  const files = {
    'START.md': 'Begin.\n',
    'run.sh*': '#!/bin/sh\necho "<goto>START.md</goto>"\n',
    'lib/util.sh': 'helper() { :; }\n',
    'lib/deep/er/data.json': '{"a":1}\n',
    'lib/deep/tool.py*': 'print(1)\n',
    'empty.txt': '',
    '.hidden': 'kept\n',
    '.git/config': 'skipped\n',
    'node_modules/x/index.js': 'skipped\n',
    '.raymond/tasks/t.md': 'skipped\n',
    'lib/node_modules/y.js': 'skipped at any depth\n',
    'lib/.git/HEAD': 'skipped at any depth\n',
  };
  const kept = [
    '.hidden',
    'START.md',
    'empty.txt',
    'lib/deep/er/data.json',
    'lib/deep/tool.py',
    'lib/util.sh',
    'run.sh',
  ];

  it('a folder sent is received whole: contents and exec bits, without .git, node_modules and .raymond', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const dir = folder(files);
    const sent = await sendFolder(dir, ctx.blobs);
    assert.match(sent.manifest, /^[0-9a-f]{64}$/);
    const manifest = JSON.parse((await ctx.blobs.get(sent.manifest)).toString()) as FolderManifest;
    assert.deepEqual(Object.keys(manifest.files).sort(), kept);
    assert.equal(sent.shas[0], sent.manifest);
    assert.equal(sent.shas.length, 1 + kept.length);
    assert.equal(await ctx.blobs.missing(sent.shas), 0);

    const cache = mkdtempSync(join(root, 'cache-'));
    const got = await receiveFolder(sent.manifest, ctx.blobs, cache);
    assert.equal(got, join(cache, sent.manifest));
    assert.deepEqual(list(got), kept);
    for (const [name, text] of Object.entries(files)) {
      const rel = name.replace(/\*$/, '');
      if (!kept.includes(rel)) continue;
      assert.equal(readFileSync(join(got, rel), 'utf8'), text, rel);
      assert.equal(isExec(join(got, rel)), name.endsWith('*'), `exec bit of ${rel}`);
    }
    assert.deepEqual(readdirSync(cache), [sent.manifest], 'no temporary folder left behind');
  });

  it('the same folder gives the same manifest hash', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const a = await sendFolder(folder({ 'a.sh*': 'x', 'b/c.md': 'y' }), ctx.blobs);
    const b = await sendFolder(folder({ 'b/c.md': 'y', 'a.sh*': 'x' }), ctx.blobs);
    assert.equal(a.manifest, b.manifest);
    const c = await sendFolder(folder({ 'a.sh': 'x', 'b/c.md': 'y' }), ctx.blobs);
    assert.notEqual(a.manifest, c.manifest, 'the exec bit is part of the manifest');
  });

  it('sends a symlink inside the folder as what it points to, and leaves out one that points to nothing', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const dir = folder({ 'real.sh*': 'echo real\n', 'lib/util.sh': 'u' });
    symlinkSync(join(dir, 'real.sh'), join(dir, 'START.sh'));
    symlinkSync('lib', join(dir, 'shared'));
    symlinkSync('..', join(dir, 'lib', 'up'));
    symlinkSync(join(dir, 'gone.sh'), join(dir, 'dangling.sh'));
    const sent = await sendFolder(dir, ctx.blobs);
    const manifest = JSON.parse((await ctx.blobs.get(sent.manifest)).toString()) as FolderManifest;
    assert.deepEqual(
      Object.keys(manifest.files).sort(),
      ['START.sh', 'lib/util.sh', 'real.sh'],
      'a folder reached twice is walked once',
    );
    assert.deepEqual(
      manifest.files['START.sh'],
      manifest.files['real.sh'],
      "the target's bytes and exec bit",
    );
    const got = await receiveFolder(sent.manifest, ctx.blobs, mkdtempSync(join(root, 'cache-')));
    assert.equal(readFileSync(join(got, 'START.sh'), 'utf8'), 'echo real\n');
    assert.ok(isExec(join(got, 'START.sh')));
  });

  it('refuses a symlink that leaves the folder, naming it, in one line', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const outside = folder({ 'deploy.sh*': 'echo deploy\n' });
    const dir = folder({ 'real.md': 'r' });
    symlinkSync(join(outside, 'deploy.sh'), join(dir, 'DEPLOY.sh'));
    const err = await rejection(sendFolder(dir, ctx.blobs));
    assert.equal(err.code, 'ERR_QUEUE');
    assert.equal(err.file, join(dir, 'DEPLOY.sh'));
    assert.match(
      err.message,
      /^"DEPLOY\.sh" is a symbolic link to .*deploy\.sh, outside the workflow folder: .*--queue refuses it/,
    );
    assert.doesNotMatch(err.message, /\n/);
    const etc = folder({ 'real.md': 'r' });
    symlinkSync('/etc', join(etc, 'etc'));
    assert.match(
      (await rejection(sendFolder(etc, ctx.blobs))).message,
      /^"etc" is a symbolic link to \/etc, outside/,
    );
  });

  it('receiving the same manifest twice returns the same folder, made once', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const sent = await sendFolder(folder({ 'x.sh*': 'echo x\n' }), ctx.blobs);
    const cache = mkdtempSync(join(root, 'cache-'));
    const first = await receiveFolder(sent.manifest, ctx.blobs, cache);
    writeFileSync(join(first, 'marker'), 'still here');
    const second = await receiveFolder(sent.manifest, ctx.blobs, cache);
    assert.equal(second, first);
    assert.equal(readFileSync(join(second, 'marker'), 'utf8'), 'still here', 'not made again');
    const both = await Promise.all(
      [1, 2, 3].map(() => receiveFolder(sent.manifest, ctx.blobs, mkdtempSync(join(root, 'c-')))),
    );
    for (const d of both) assert.deepEqual(list(d), ['x.sh']);
  });

  it('refuses a folder whose file was tampered with in Redis, and leaves nothing in the cache', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const sent = await sendFolder(folder({ 'ok.md': 'fine', 'run.sh*': 'echo good\n' }), ctx.blobs);
    await ctx.redis.set(`raymond:blob:${sha256('echo good\n')}`, 'rm -rf ~\n');
    const cache = mkdtempSync(join(root, 'cache-'));
    const err = await rejection(receiveFolder(sent.manifest, ctx.blobs, cache));
    assert.equal(err.code, 'ERR_QUEUE_REFUSED');
    assert.deepEqual(readdirSync(cache), []);
  });

  const escapes = [
    '../escaped.sh',
    'a/../../escaped.sh',
    '/tmp/escaped-abs.sh',
    'a//b.sh',
    './a.sh',
    'a/./b.sh',
    '',
    'a/..',
  ];
  for (const rel of escapes) {
    it(`refuses a manifest path ${JSON.stringify(rel)}, writing nothing outside the cache (nor in it)`, async (t) => {
      if (!ctx.server) return t.skip(NO_REDIS);
      const sha = await ctx.blobs.put(Buffer.from('#!/bin/sh\necho pwned\n'));
      const ok = await ctx.blobs.put(Buffer.from('fine'));
      const manifest = await putManifest({
        'first.md': { sha: ok, exec: false },
        [rel]: { sha, exec: true },
      });
      const box = mkdtempSync(join(root, 'box-'));
      const cache = join(box, 'cache');
      mkdirSync(cache);
      const err = await rejection(receiveFolder(manifest, ctx.blobs, cache));
      assert.equal(err.code, 'ERR_QUEUE_REFUSED');
      assert.match(err.message, /leaves its folder: refused/);
      assert.deepEqual(readdirSync(box), ['cache'], 'nothing written beside the cache');
      assert.deepEqual(readdirSync(cache), [], 'nor left in it');
      assert.ok(!existsSync('/tmp/escaped-abs.sh'));
    });
  }

  const malformed: Array<[string, string, RegExp]> = [
    ['not JSON', '{"files": ', /is not one: it is not JSON: refused$/],
    ['a list', '[]', /is not one: the manifest must be an object: refused$/],
    [
      'files that is a list',
      '{"files": []}',
      /files is \[\]; it must be an object of files: refused/,
    ],
    [
      'a file without its hash',
      '{"files": {"a.sh": {"exec": true}}}',
      /files is \{"a\.sh":\{"exec":true\}\}; it must be an object of files: refused/,
    ],
  ];
  for (const [what, text, message] of malformed) {
    it(`refuses a manifest that is ${what}, in one line naming it`, async (t) => {
      if (!ctx.server) return t.skip(NO_REDIS);
      const manifest = await ctx.blobs.put(Buffer.from(text));
      const cache = mkdtempSync(join(root, 'cache-'));
      const err = await rejection(receiveFolder(manifest, ctx.blobs, cache));
      assert.equal(err.code, 'ERR_QUEUE_REFUSED');
      assert.ok(
        err.message.startsWith(
          `the workflow folder's manifest ${manifest.slice(0, 12)} is not one: `,
        ),
        err.message,
      );
      assert.match(err.message, message);
      assert.doesNotMatch(err.message, /\n/);
      assert.deepEqual(readdirSync(cache), []);
    });
  }
});
