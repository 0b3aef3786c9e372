import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, raymond, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('--name: a label for a run', () => {
  it('is kept in the state file and shown by --list, --status and the terminal title; --resume may change it', async () => {
    const wf = box.write(
      {
        'START.sh': sh('[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || exit 9', 'echo "<result>ok</result>"'),
      },
      'named',
    );
    const first = await box.run([wf, '--workflow-id', 'nm1', '--name', 'nightly refactor']);
    assert.equal(first.code, 1, first.stderr);
    assert.equal(box.state('nm1').options.name, 'nightly refactor');
    assert.match((await box.run(['--list'])).stdout, /^nm1 {2}"nightly refactor" {2}failed /m);
    assert.match(
      (await box.run(['--status', 'nm1'])).stdout,
      /^run nm1 "nightly refactor": failed/,
    );
    assert.equal(
      JSON.parse((await box.run(['--list', '--json'])).stdout).find(
        (r: { workflow_id: string }) => r.workflow_id === 'nm1',
      ).name,
      'nightly refactor',
    );
    writeFileSync(join(box.dir, 'nm1.ok'), '');
    // On a terminal, as a user's shell gives it.
    const r = await execa(
      'script',
      ['-qfec', `${process.execPath} ${CLI} --resume nm1 --name "second try"`, '/dev/null'],
      { cwd: box.dir, reject: false },
    );
    assert.equal(r.exitCode, 0, r.stdout);
    assert.ok(r.stdout.includes('\x1b]2;ray: second try: START\x07'), r.stdout);
    assert.equal(box.state('nm1').options.name, 'second try');
  });

  it('comes from name in .raymond/config.toml, as ray writes it, unless --name is given', async () => {
    const project = join(box.dir, 'project');
    mkdirSync(join(project, '.raymond'), { recursive: true });
    writeFileSync(join(project, '.raymond/config.toml'), '[raymond]\nname = "from config"\n');
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'project/wf');
    const r = await raymond([wf, '--workflow-id', 'nm2'], { cwd: project });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.includes('warning'), false, r.stderr);
    const flag = await raymond([wf, '--workflow-id', 'nm3', '--name', 'flag'], { cwd: project });
    assert.equal(flag.code, 0, flag.stderr);
    const list = await raymond(['--list'], { cwd: project });
    assert.match(list.stdout, /^nm2 {2}"from config" /m);
    assert.match(list.stdout, /^nm3 {2}"flag" /m);
  });

  it('refuses an empty, multi-line or overlong label with one line', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'badname');
    for (const [name, why] of [
      ['', /the label is empty/],
      ['a\nb', /control character/],
      ['x'.repeat(101), /at most 100/],
    ] as const) {
      const r = await box.run([wf, '--workflow-id', 'nm-bad', '--name', name]);
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.ok(!existsSync(join(box.dir, '.raymond/state/nm-bad.json')));
  });
});
