import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, raymond, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** Where a run's agent keeps its folder by default. */
const folder = (id: string, agent: string) => join(box.dir, '.raymond/tasks', id, agent);

describe('task folders (script states)', () => {
  it('gives every agent its own folder, made on first use; task="inherit" shares the parent\'s', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo main > "$RAYMOND_TASK_FOLDER/who"',
          'echo "<fork next=\\"END\\">W</fork><fork next=\\"END\\" task=\\"inherit\\">SHARE</fork>"',
        ),
        'W.sh': sh(
          '[ -d "$RAYMOND_TASK_FOLDER" ] || exit 7',
          'echo "<result>$RAYMOND_TASK_FOLDER</result>"',
        ),
        'SHARE.sh': sh(
          'echo "<result>$RAYMOND_TASK_FOLDER $(cat "$RAYMOND_TASK_FOLDER/who")</result>"',
        ),
        'END.sh': sh('echo "<result>$RAYMOND_TASK_FOLDER</result>"'),
      },
      'forks',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'tf1', '--max-parallel', '1']);
    assert.equal(r.code, 0, r.stderr);
    const results = summary(r).results;
    assert.equal(results.main, folder('tf1', 'main'));
    assert.equal(results.main_w1, folder('tf1', 'main_w1'));
    assert.equal(
      results.main_share2,
      `${folder('tf1', 'main')} main`,
      "the inheriting worker reads the parent's file",
    );
    assert.ok(existsSync(folder('tf1', 'main_w1')));
    assert.ok(!existsSync(folder('tf1', 'main_share2')), 'no folder for the worker that shares');
    const agents = Object.fromEntries(box.state('tf1').agents.map((a) => [a.id, a.task_folder]));
    assert.deepEqual(agents, {
      main: folder('tf1', 'main'),
      main_w1: folder('tf1', 'main_w1'),
      main_share2: folder('tf1', 'main'),
    });
  });

  it('task="new" on <reset> moves the agent to a fresh folder; a plain reset keeps it', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo one > "$RAYMOND_TASK_FOLDER/f"', 'echo "<reset>KEEP</reset>"'),
        'KEEP.sh': sh(
          'echo "<reset task=\\"new\\" input=\\"$(cat "$RAYMOND_TASK_FOLDER/f")\\">NEW</reset>"',
        ),
        'NEW.sh': sh(
          '[ -e "$RAYMOND_TASK_FOLDER/f" ] && exit 8',
          'echo "<result>$RAYMOND_INPUT $RAYMOND_TASK_FOLDER</result>"',
        ),
      },
      'reset',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'tf2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, `one ${folder('tf2', 'main')}.2`);
    assert.equal(box.state('tf2').agents[0]!.task_folder, `${folder('tf2', 'main')}.2`);
    assert.equal(box.state('tf2').agents[0]!.task_number, 2);
  });

  it('an agent keeps its folder through --resume', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<reset task=\\"new\\">MIDDLE</reset>"'),
        'MIDDLE.sh': sh(
          'echo "$RAYMOND_TASK_FOLDER" >> "$RAYMOND_WORKFLOW_ID.seen"',
          '[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || exit 9',
          'echo "<result>$RAYMOND_TASK_FOLDER</result>"',
        ),
      },
      'resume',
    );
    const first = await box.run([wf, '--json', '--workflow-id', 'tf3']);
    assert.equal(first.code, 1, first.stderr);
    writeFileSync(join(box.dir, 'tf3.ok'), '');
    const second = await box.run(['--resume', 'tf3', '--json']);
    assert.equal(second.code, 0, second.stderr);
    const expected = `${folder('tf3', 'main')}.2`;
    assert.equal(summary(second).results.main, expected);
    assert.deepEqual(readFileSync(join(box.dir, 'tf3.seen'), 'utf8').trim().split('\n'), [
      expected,
      expected,
    ]);
  });

  it('gives an agent of an older state file (no task_folder) the default folder on --resume', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          '[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || exit 9',
          'echo "<result>$RAYMOND_TASK_FOLDER</result>"',
        ),
      },
      'old',
    );
    assert.equal((await box.run([wf, '--workflow-id', 'tf4'])).code, 1);
    const path = join(box.dir, '.raymond/state/tf4.json');
    const state = box.state('tf4');
    for (const a of state.agents) delete a.task_folder;
    delete state.options.task_folder_pattern;
    writeFileSync(path, JSON.stringify(state));
    writeFileSync(join(box.dir, '.raymond/state/tf4.journal'), '');
    writeFileSync(join(box.dir, 'tf4.ok'), '');
    const r = await box.run(['--resume', 'tf4', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, folder('tf4', 'main'));
  });

  it('honours task_folder_pattern from .raymond/config.toml', async () => {
    const project = join(box.dir, 'project');
    mkdirSync(join(project, '.raymond'), { recursive: true });
    writeFileSync(
      join(project, '.raymond/config.toml'),
      '[raymond]\ntask_folder_pattern = "work/{agent_id}-of-{workflow_id}/"\n',
    );
    const wf = box.write(
      { 'START.sh': sh('echo "<result>$RAYMOND_TASK_FOLDER</result>"') },
      'project/wf',
    );
    const r = await raymond([wf, '--json', '--workflow-id', 'tf5'], { cwd: project });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, join(project, 'work/main-of-tf5'));
    assert.ok(existsSync(join(project, 'work/main-of-tf5')));
  });

  it('refuses a bad task_folder_pattern or task value with one line', async () => {
    const project = join(box.dir, 'bad');
    mkdirSync(join(project, '.raymond'), { recursive: true });
    const config = join(project, '.raymond/config.toml');
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'bad/wf');
    for (const [pattern, why] of [
      ['../out/{workflow_id}/{agent_id}', /must not contain "\.\."/],
      ['/tmp/{workflow_id}/{agent_id}', /must be relative/],
      ['tasks/{agent_id}', /must contain \{workflow_id\}/],
      ['tasks/{workflow_id}/{agent}', /"\{agent\}"; the only placeholders/],
    ] as const) {
      writeFileSync(config, `[raymond]\ntask_folder_pattern = "${pattern}"\n`);
      const r = await raymond([wf], { cwd: project });
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^raymond: .*config\.toml: raymond\.task_folder_pattern = /);
      assert.ok(!existsSync(join(project, '.raymond/state')), 'nothing was written');
    }
    const tag = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"END\\" task=\\"mine\\">END</fork>"'),
        'END.sh': sh('echo "<result>x</result>"'),
      },
      'badtag',
    );
    const r = await box.run([tag, '--workflow-id', 'tf6']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^raymond: .*START\.sh: <fork> task="mine": expected task="new" or task="inherit"$/m,
    );
  });

  it('with --state-dir NAME (not a `state` folder) the task folders stay beside it, never above the working directory', async () => {
    const project = join(box.dir, 'statedir');
    mkdirSync(project, { recursive: true });
    const wf = box.write(
      { 'START.sh': sh('echo "<result>$RAYMOND_TASK_FOLDER</result>"') },
      'statedir/wf',
    );
    const r = await raymond([wf, '--json', '--workflow-id', 'tf7', '--state-dir', 'st'], {
      cwd: project,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, join(project, '.raymond/tasks/tf7/main'));
    assert.ok(
      !existsSync(join(box.dir, '.raymond/tasks/tf7')),
      'nothing above the working directory',
    );
  });

  it("with --state-dir <dir>/x/state the task folders go under x (the state folder's parent is not .raymond), not above it", async () => {
    const project = join(box.dir, 'named');
    mkdirSync(project, { recursive: true });
    const wf = box.write(
      { 'START.sh': sh('echo "<result>$RAYMOND_TASK_FOLDER</result>"') },
      'named/wf',
    );
    const r = await raymond(
      [wf, '--json', '--workflow-id', 'tf8', '--state-dir', join(project, 'x/state')],
      { cwd: project },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, join(project, 'x/.raymond/tasks/tf8/main'));
    assert.ok(existsSync(join(project, 'x/.raymond/tasks/tf8/main')), 'the folder was made');
    assert.ok(!existsSync(join(project, '.raymond/tasks/tf8')), 'nothing in the folder holding x');
    assert.ok(
      !existsSync(join(box.dir, '.raymond/tasks/tf8')),
      'nothing above the working directory',
    );
  });

  it('makes no task folder for a workflow whose files never name one; its scripts still see the path', async () => {
    const wf = box.write(
      {
        'START.sh': sh('for i in 1 2 3; do printf \'<fork next="END">W</fork>\'; done'),
        'W.sh': sh('n=RAYMOND_TASK_FOL; n=${n}DER', 'echo "<result>${!n}</result>"'),
        'END.sh': sh('echo "<result>done</result>"'),
      },
      'unused',
    );
    // The variable's name is built at run time (bash's ${!n}) so that the workflow's files do not name it.
    assert.ok(!readFileSync(join(wf, 'W.sh'), 'utf8').includes('TASK_FOLDER'));
    const r = await box.run([wf, '--json', '--workflow-id', 'tf-unused']);
    assert.equal(r.code, 0, r.stderr);
    const results = summary(r).results;
    assert.equal(results.main_w1, folder('tf-unused', 'main_w1'), 'the script saw its path');
    assert.ok(!existsSync(join(box.dir, '.raymond/tasks/tf-unused')), 'and nothing was made');
  });

  it('makes the folders when a file beside the states names them (a helper the scripts source)', async () => {
    const wf = box.write(
      {
        'START.sh': sh('. "$(dirname "$0")/lib.sh"', 'note main', 'echo "<goto>END</goto>"'),
        'lib.sh': 'note() { echo "$1" > "$RAYMOND_TASK_FOLDER/note"; }\n',
        'END.sh': sh('echo "<result>done</result>"'),
      },
      'helper',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'tf-helper']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(folder('tf-helper', 'main'), 'note'), 'utf8'), 'main\n');
  });
});
