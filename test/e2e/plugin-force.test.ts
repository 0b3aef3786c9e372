import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const RESULT = sh('echo "<result>x</result>"');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** `raymond export claude-plugin WORKFLOWS --out OUT ...`, with this Node as the server's command. */
const exportTo = (out: string, ...args: string[]) =>
  box.run(['export', 'claude-plugin', ...args, '--out', out, '--command', process.execPath]);

describe('raymond export claude-plugin --force replaces only what an export wrote', () => {
  it("keeps the folder's .git history and the user's own files, and replaces the plugin", async () => {
    const wfs = box.write({ 'alpha/START.sh': RESULT, 'beta/START.sh': RESULT }, 'wfs');
    const out = join(box.dir, 'kept-plugin');
    const first = await exportTo(out, join(wfs, 'alpha'));
    assert.equal(first.code, 0, first.stderr);
    git(out, 'init', '-q');
    git(out, 'add', '-A');
    git(out, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'the plugin');
    writeFileSync(join(out, 'NOTES.md'), 'mine');
    mkdirSync(join(out, 'skills', 'mine'));
    writeFileSync(join(out, 'skills', 'mine', 'SKILL.md'), 'my own skill');
    const again = await exportTo(out, join(wfs, 'beta'), '--force');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(git(out, 'log', '--format=%s'), 'the plugin', 'the history is intact');
    assert.equal(readFileSync(join(out, 'NOTES.md'), 'utf8'), 'mine');
    assert.equal(readFileSync(join(out, 'skills', 'mine', 'SKILL.md'), 'utf8'), 'my own skill');
    assert.deepEqual(readdirSync(join(out, 'skills')).sort(), ['beta', 'mine']);
    assert.deepEqual(readdirSync(join(out, 'workflows')), ['beta']);
    const manifest = JSON.parse(readFileSync(join(out, '.raymond-export.json'), 'utf8')) as {
      files: string[];
    };
    assert.ok(manifest.files.includes('skills/beta/SKILL.md'));
    assert.ok(!manifest.files.some((f) => f.startsWith('.git') || f === 'NOTES.md'));
  });

  it('refuses a non-empty folder no export made, and a file of the user where it would write', async () => {
    const wfs = box.write({ 'gamma/START.sh': RESULT }, 'wfs2');
    const mine = box.write({ 'notes.txt': 'mine', '.git/HEAD': 'ref: refs/heads/main\n' }, 'mine');
    const r = await exportTo(mine, join(wfs, 'gamma'), '--force');
    assert.equal(r.code, 64, r.stderr);
    assert.match(r.stderr, /mine: not empty, and no raymond export made it/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.deepEqual(readdirSync(mine).sort(), ['.git', 'notes.txt']);

    const out = join(box.dir, 'clash-plugin');
    assert.equal((await exportTo(out, join(wfs, 'gamma'))).code, 0);
    const other = box.write({ 'delta/START.sh': RESULT }, 'wfs3');
    mkdirSync(join(out, 'skills', 'delta'), { recursive: true });
    writeFileSync(join(out, 'skills', 'delta', 'SKILL.md'), 'the user wrote this');
    const clash = await exportTo(out, join(other, 'delta'), '--force');
    assert.equal(clash.code, 64, clash.stderr);
    assert.match(
      clash.stderr,
      /"skills\/delta\/SKILL\.md" in the plugin folder is not a file an earlier export wrote/,
    );
    assert.equal(
      readFileSync(join(out, 'skills', 'delta', 'SKILL.md'), 'utf8'),
      'the user wrote this',
    );
    assert.ok(existsSync(join(out, 'skills', 'gamma', 'SKILL.md')), 'the old plugin is as it was');
  });
});

describe('raymond export claude-plugin copies no file from outside the workflow', () => {
  for (const [what, target] of [
    ['a link to /etc/passwd', '/etc/passwd'],
    ['a link to a folder outside the workflow', '..'],
  ] as const)
    it(`refuses ${what} in one line, and writes nothing`, async () => {
      const wf = box.write({ 'START.sh': RESULT }, `linked-${target.length}`);
      symlinkSync(target === '..' ? join(box.dir) : target, join(wf, 'leak'));
      const out = join(box.dir, `linked-plugin-${target.length}`);
      const r = await exportTo(out, wf);
      assert.equal(r.code, 64, r.stderr);
      assert.match(
        r.stderr,
        /"leak" is a symbolic link to .*, outside the workflow folder: a plugin holds only the workflow's own files/,
      );
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(!existsSync(out));
    });

  it('copies a link that stays inside the workflow as its content', async () => {
    const wf = box.write({ 'START.sh': RESULT, 'lib/rules.md': 'the rules' }, 'linked-in');
    symlinkSync(join(wf, 'lib', 'rules.md'), join(wf, 'RULES.md'));
    const out = join(box.dir, 'linked-in-plugin');
    const r = await exportTo(out, wf);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      readFileSync(join(out, 'workflows', 'linked-in', 'RULES.md'), 'utf8'),
      'the rules',
    );
  });
});
