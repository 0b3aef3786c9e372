import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { writeClaudePlugin, type ClaudePluginOptions } from '../../src/mcp/claude-plugin.js';
import { RaymondError } from '../../src/errors.js';
import { Sandbox, sh } from '../helpers/cli.js';
import { makeZip } from '../helpers/make-zip.js';

const box = new Sandbox();
after(() => box.remove());

const RESULT = sh('echo "<result>x</result>"');

/** A folder, a skill package, a YAML workflow and a zip, under `base`. */
function workflows(base: string): { plain: string; pkg: string; flow: string; zip: string } {
  const root = box.write(
    {
      'plain/START.sh': RESULT,
      'plain/.git/HEAD': 'ref: refs/heads/main\n',
      'pkg/workflow.yaml':
        'id: approve\nname: Approval\ndescription: "Plans a change: then waits"\ninput: { mode: required, label: Change, description: The change. }\ndefault_budget: 2\nrequires_human_input: "true"\n',
      'pkg/SKILL.md': '---\nname: approve\n---\nray package\n',
      'pkg/run.sh': sh('exec ray "$(dirname "$0")/states"'),
      'pkg/states/1_START.sh': RESULT,
      'flow.yaml':
        'name: Flow\ninput: { mode: none }\nstates:\n  START:\n    sh: echo "<result>x</result>"\n',
    },
    base,
  );
  writeFileSync(join(root, 'zipped.zip'), makeZip([{ name: 'START.sh', content: RESULT }]));
  return {
    plain: join(root, 'plain'),
    pkg: join(root, 'pkg'),
    flow: join(root, 'flow.yaml'),
    zip: join(root, 'zipped.zip'),
  };
}

/** `writeClaudePlugin` with the executable this test runs as the command, so no PATH lookup warns. */
function write(o: Partial<ClaudePluginOptions> & Pick<ClaudePluginOptions, 'workflows' | 'out'>) {
  return writeClaudePlugin({ command: process.execPath, author: 'Tester', ...o });
}

async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<RaymondError> {
  const err = await promise.then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RaymondError, String(err));
  assert.match(`${err.file ?? ''}: ${err.message}`, pattern);
  return err;
}

function frontmatter(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8');
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(m, `${path} starts with frontmatter`);
  return parse(m[1]!) as Record<string, unknown>;
}

describe('writeClaudePlugin', () => {
  it('writes the manifests, a skill per workflow and a copy of each workflow', async () => {
    const w = workflows('kinds');
    const out = join(box.dir, 'kinds-plugin');
    const report = await write({
      workflows: [w.plain, w.pkg, w.flow, w.zip],
      out,
      wait: 20,
      budget: 1.5,
    });
    assert.equal(report.name, 'raymond-workflows');
    assert.deepEqual(report.warnings, []);
    assert.deepEqual(
      report.skills.map((s) => [s.id, s.skill, s.tool]),
      [
        ['approve', 'raymond-workflows:approve', 'mcp__plugin_raymond-workflows_raymond__approve'],
        ['flow', 'raymond-workflows:flow', 'mcp__plugin_raymond-workflows_raymond__flow'],
        ['plain', 'raymond-workflows:plain', 'mcp__plugin_raymond-workflows_raymond__plain'],
        ['zipped', 'raymond-workflows:zipped', 'mcp__plugin_raymond-workflows_raymond__zipped'],
      ],
    );
    const plugin = JSON.parse(readFileSync(join(out, '.claude-plugin/plugin.json'), 'utf8'));
    assert.equal(plugin.name, 'raymond-workflows');
    assert.match(plugin.version, /^\d+\.\d+\.\d+$/);
    assert.deepEqual(plugin.author, { name: 'Tester' });
    const market = JSON.parse(readFileSync(join(out, '.claude-plugin/marketplace.json'), 'utf8'));
    assert.deepEqual(
      market.plugins.map((p: { name: string; source: string }) => [p.name, p.source]),
      [['raymond-workflows', './']],
    );
    assert.deepEqual(market.owner, { name: 'Tester' });
    const mcp = JSON.parse(readFileSync(join(out, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp, {
      mcpServers: {
        raymond: {
          command: process.execPath,
          args: [
            'mcp',
            '--root',
            '${CLAUDE_PLUGIN_ROOT}/workflows',
            '--wait',
            '20',
            '--budget',
            '1.5',
          ],
        },
      },
    });
    assert.deepEqual(readdirSync(join(out, 'skills')).sort(), [
      'approve',
      'flow',
      'plain',
      'zipped',
    ]);
    assert.deepEqual(readdirSync(join(out, 'workflows')).sort(), [
      'flow.yaml',
      'pkg',
      'plain',
      'zipped.zip',
    ]);
    // The skill package stays a package: run.sh still runs, its own SKILL.md is beside it.
    assert.ok(statSync(join(out, 'workflows/pkg/run.sh')).mode & 0o100);
    assert.ok(existsSync(join(out, 'workflows/pkg/SKILL.md')));
    assert.ok(!existsSync(join(out, 'workflows/plain/.git')), 'a .git folder is left out');
    assert.match(readFileSync(join(out, 'README.md'), 'utf8'), /claude --plugin-dir/);
    assert.deepEqual(
      readdirSync(box.dir).filter((n) => n.startsWith('.kinds-plugin')),
      [],
      'no temporary folder is left',
    );
  });

  it("gives each SKILL.md its tool's name, a description, and allowed-tools for its tools", async () => {
    const w = workflows('skills');
    const out = join(box.dir, 'skills-plugin');
    await write({ workflows: [w.pkg], out });
    const front = frontmatter(join(out, 'skills/approve/SKILL.md'));
    assert.equal(front.name, 'approve');
    assert.match(
      String(front.description),
      /^Plans a change: then waits\. Input: Change \(The change\)\./,
    );
    assert.deepEqual(front['allowed-tools'], [
      'mcp__plugin_approve_raymond__approve',
      'mcp__plugin_approve_raymond__raymond_status',
      'mcp__plugin_approve_raymond__raymond_answer',
      'mcp__plugin_approve_raymond__raymond_cancel',
    ]);
    const body = readFileSync(join(out, 'skills/approve/SKILL.md'), 'utf8');
    assert.match(body, /calling the MCP tool `mcp__plugin_approve_raymond__approve`/);
    assert.match(body, /`input` \(string, required\)/);
    assert.match(body, /\$2\.00, this workflow's default/);
    assert.match(body, /This workflow asks questions/);
  });

  it('names the plugin after its one workflow, and tools after ids as raymond mcp does', async () => {
    const root = box.write(
      {
        'odd/workflow.yaml': 'id: "My Flow!"\n',
        'odd/START.sh': RESULT,
        'twin/workflow.yaml': 'id: "My_Flow"\n',
        'twin/START.sh': RESULT,
      },
      'names',
    );
    const one = await write({ workflows: [join(root, 'odd')], out: join(box.dir, 'names-one') });
    assert.equal(one.name, 'My-Flow');
    assert.deepEqual(
      one.skills.map((s) => s.tool),
      ['mcp__plugin_My-Flow_raymond__My_Flow'],
    );
    const two = await write({
      workflows: [join(root, 'odd'), join(root, 'twin')],
      out: join(box.dir, 'names-two'),
      name: 'flows',
    });
    assert.deepEqual(
      two.skills.map((s) => [s.id, s.skill]),
      [
        ['My Flow!', 'flows:My_Flow'],
        ['My_Flow', 'flows:My_Flow_2'],
      ],
    );
    assert.ok(existsSync(join(box.dir, 'names-two/skills/My_Flow_2/SKILL.md')));
  });

  it('warns when a full tool name is longer than model APIs take', async () => {
    const w = workflows('long');
    const report = await write({
      workflows: [w.plain],
      out: join(box.dir, 'long-plugin'),
      name: 'a-plugin-name-long-enough-to-push-the-tool-name-over',
    });
    assert.match(report.warnings.join('\n'), /is 79 characters; model APIs take at most 64/);
  });

  it('refuses a non-empty --out without --force, and replaces only a plugin with it', async () => {
    const w = workflows('force');
    const out = join(box.dir, 'force-plugin');
    await write({ workflows: [w.plain], out });
    await refused(write({ workflows: [w.flow], out }), /force-plugin: not empty: give --force/);
    assert.ok(existsSync(join(out, 'skills/plain')), 'the plugin is as it was');
    await write({ workflows: [w.flow], out, force: true });
    assert.deepEqual(readdirSync(join(out, 'skills')), ['flow']);
    const other = box.write({ 'notes.txt': 'mine' }, 'not-a-plugin');
    await refused(
      write({ workflows: [w.flow], out: other, force: true }),
      /not-a-plugin: not empty, and no raymond export made it/,
    );
    assert.equal(readFileSync(join(other, 'notes.txt'), 'utf8'), 'mine');
    mkdirSync(join(box.dir, 'empty-out'));
    await write({ workflows: [w.flow], out: join(box.dir, 'empty-out') });
  });

  it('leaves nothing when a workflow is bad, and names the path given', async () => {
    const w = workflows('bad');
    const root = box.write(
      {
        'noentry/NOTES.md': 'x',
        'badman/workflow.yaml': 'input: { mode: sometimes }\n',
        'badman/START.sh': RESULT,
        'dup/workflow.yaml': 'id: plain\n',
        'dup/START.sh': RESULT,
        'file.txt': 'x',
        'other/plain/START.sh': RESULT,
      },
      'bad-inputs',
    );
    const out = join(box.dir, 'bad-plugin');
    const cases: Array<[string[], RegExp]> = [
      [[w.plain, join(root, 'missing')], /missing: no such file or directory/],
      [[join(root, 'file.txt')], /file\.txt: not a workflow a plugin can hold/],
      [[join(root, 'noentry')], /noentry: no entry state/],
      [[join(root, 'badman')], /badman: input\.mode must be one of required, optional, none/],
      [
        [w.plain, join(root, 'dup')],
        /plain: workflow id "plain" is already .*bad-inputs\/dup's; this one is not served/,
      ],
      [
        [w.plain, join(root, 'other/plain')],
        /other\/plain: another workflow given has the same name/,
      ],
    ];
    for (const [paths, pattern] of cases) {
      await refused(write({ workflows: paths, out }), pattern);
      assert.ok(!existsSync(out), `${pattern}: no plugin folder`);
    }
    assert.deepEqual(
      readdirSync(box.dir).filter((n) => n.startsWith('.bad-plugin')),
      [],
    );
    await refused(
      write({ workflows: [w.plain], out: join(w.plain, 'plugin') }),
      /plain: the plugin's folder .* is inside this workflow/,
    );
    assert.deepEqual(readdirSync(w.plain).sort(), ['.git', 'START.sh']);
    await refused(write({ workflows: [w.plain], out, name: 'two words' }), /--name "two words"/);
  });

  it('makes a --command path absolute, refuses a missing one, and warns of a name not on PATH', async () => {
    const w = workflows('command');
    const bin = box.write({ 'bin/raymond.sh': sh('exit 0') }, '');
    const relative = join('bin', 'raymond.sh');
    const cwd = process.cwd();
    process.chdir(bin);
    try {
      await write({
        workflows: [w.plain],
        out: join(box.dir, 'command-plugin'),
        command: relative,
      });
    } finally {
      process.chdir(cwd);
    }
    const mcp = JSON.parse(readFileSync(join(box.dir, 'command-plugin/.mcp.json'), 'utf8'));
    assert.equal(mcp.mcpServers.raymond.command, join(bin, relative));
    await refused(
      write({ workflows: [w.plain], out: join(box.dir, 'command-2'), command: './nope' }),
      /\.\/nope: --command: no such executable file/,
    );
    const named = await write({
      workflows: [w.plain],
      out: join(box.dir, 'command-3'),
      command: 'raymond-not-installed-here',
    });
    assert.match(named.warnings.join('\n'), /"raymond-not-installed-here" is not on PATH here/);
  });
});
