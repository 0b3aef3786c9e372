import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { ROOT, Sandbox, summary } from '../helpers/cli.js';
import { makeZip } from '../helpers/make-zip.js';

const box = new Sandbox();
after(() => box.remove());

/** A YAML workflow of scripts: START hands its input to DONE, which returns it. */
const FLOW = [
  'id: flow',
  'name: A flow',
  'states:',
  '  START:',
  '    sh: |',
  '      echo "<goto input=\\"from start\\">DONE</goto>"',
  '  DONE:',
  '    sh: |',
  '      echo "<result>done: $RAYMOND_INPUT</result>"',
  '    bat: echo never',
  '',
].join('\n');

describe('YAML workflows', () => {
  it('runs a YAML workflow of scripts to its result and records the scope as yaml', async () => {
    writeFileSync(join(box.dir, 'flow.yaml'), FLOW);
    const r = await box.run(['flow.yaml', '--json', '--workflow-id', 'y1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'done: from start' });
    const state = box.state('y1');
    assert.deepEqual(
      { kind: state.scope.kind, path: state.scope.path, entry: state.scope.entry },
      { kind: 'yaml', path: join(box.dir, 'flow.yaml'), entry: 'START.sh' },
    );
    assert.deepEqual(Object.keys(state.scope.fingerprints!), ['flow.yaml']);
  });

  it('starts at STATE with flow.yaml/STATE (and flow.yml, and x.zip/STATE)', async () => {
    writeFileSync(join(box.dir, 'flow2.yml'), FLOW);
    const r = await box.run(['flow2.yml/DONE', '--input', 'given', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'done: given' });
    const zip = makeZip([
      { name: 'START.sh', content: 'echo "<result>start</result>"\n' },
      { name: 'OTHER.sh', content: 'echo "<result>other</result>"\n' },
    ]);
    writeFileSync(join(box.dir, 'w.zip'), zip);
    const z = await box.run(['w.zip/OTHER', '--json']);
    assert.equal(z.code, 0, z.stderr);
    assert.deepEqual(summary(z).results, { main: 'other' });
    const missing = await box.run(['flow2.yml/NOPE.md']);
    assert.equal(missing.code, EXIT.invalid);
    assert.equal(
      missing.stderr,
      'raymond: flow2.yml: start state "NOPE.md" does not exist in flow2.yml\n',
    );
  });

  it('refuses an invalid YAML workflow with one line naming the file and the state, exit 64, no state file', async () => {
    const cases: Array<[string, string]> = [
      [
        'START:\n  sh: echo\n',
        'raymond: bad.yaml: no `states:` key; did you forget `states:`? the states go under it, indented',
      ],
      [
        'states:\n  START:\n    prompt: hi\n    sh: echo\n',
        'raymond: bad.yaml: state "START" has both prompt and sh; a state is either a prompt or a script',
      ],
      [
        'states:\n  START:\n    model: haiku\n',
        'raymond: bad.yaml: state "START" has neither prompt nor a script (sh, ps1, bat)',
      ],
      [
        'states:\n  START:\n    sh: echo\n    model: haiku\n',
        'raymond: bad.yaml: state "START" is a script and cannot have model (markdown states only)',
      ],
      [
        'states:\n  START:\n    sh: echo\n    timeout: -3\n',
        'raymond: bad.yaml: state "START": timeout must be a number of seconds, 0 or more (0: none), not -3',
      ],
      [
        'states:\n  "a\\\\b":\n    sh: echo\n',
        'raymond: bad.yaml: state "a\\b": a state name must not be empty or hold / or \\',
      ],
      [
        'states:\n  START:\n    sh: "unclosed\n',
        'raymond: bad.yaml: YAML syntax error (line 4): Missing closing "quote',
      ],
    ];
    // The first test made the sandbox's .raymond, so every run here keeps its state files in it.
    const stateFiles = () => readdirSync(join(box.dir, '.raymond/state')).sort();
    const before = stateFiles();
    for (const [text, line] of cases) {
      writeFileSync(join(box.dir, 'bad.yaml'), text);
      const r = await box.run(['bad.yaml']);
      assert.equal(r.code, EXIT.invalid, text);
      assert.equal(r.stderr, `${line}\n`);
      assert.deepEqual(stateFiles(), before, 'no state file');
    }
  });

  it("a state's timeout beats --timeout, both ways", async () => {
    const wf = (seconds: number) =>
      `states:\n  START:\n    timeout: ${seconds}\n    sh: |\n      sleep 3\n      echo "<result>slept</result>"\n`;
    writeFileSync(join(box.dir, 'short.yaml'), wf(1));
    const killed = await box.run(['short.yaml', '--timeout', '600']);
    assert.equal(killed.code, EXIT.failed);
    assert.match(
      killed.stderr,
      /short\.yaml:START\.sh: printed nothing for 1 s and was killed \(the state's timeout\)/,
    );
    writeFileSync(join(box.dir, 'none.yaml'), wf(0));
    const kept = await box.run(['none.yaml', '--timeout', '1', '--json']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(summary(kept).results, { main: 'slept' });
  });

  it('warns once about an unknown state key and runs on', async () => {
    writeFileSync(
      join(box.dir, 'typo.yaml'),
      'states:\n  START:\n    sh: echo "<result>ok</result>"\n    force_implcit: true\n',
    );
    const r = await box.run(['typo.yaml', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^warning: .*typo\.yaml:START\.sh: unknown key "force_implcit" in state "START" \(known: /m,
    );
  });

  it('--resume re-reads the YAML file: an edit is refused unless --allow-changes, an invalid or deleted file is one line', async () => {
    const flaky = (end: string) =>
      `states:\n  START:\n    sh: |\n      [ -f ok ] || exit 9\n      echo "<result>${end}</result>"\n`;
    const path = join(box.dir, 'resume.yaml');
    writeFileSync(path, flaky('first'));
    assert.equal((await box.run(['resume.yaml', '--workflow-id', 'yr'])).code, EXIT.failed);
    writeFileSync(join(box.dir, 'ok'), '');
    writeFileSync(path, flaky('edited'));
    const before = readFileSync(join(box.dir, '.raymond/state/yr.json'), 'utf8');
    const edited = await box.run(['--resume', 'yr']);
    assert.equal(edited.code, EXIT.invalid);
    assert.equal(
      edited.stderr,
      `raymond: ${path}: resume.yaml was edited since run yr started; restore it, or resume with --allow-changes to use the workflow as it is now\n`,
    );
    writeFileSync(path, 'states: {}\n');
    const invalid = await box.run(['--resume', 'yr']);
    assert.equal(invalid.code, EXIT.invalid);
    assert.match(
      invalid.stderr,
      /^raymond: .*yr\.json: the workflow of run yr is no longer valid \(.*resume\.yaml: `states:` is empty; give at least one state\); restore it to resume\n$/,
    );
    rmSync(path);
    const gone = await box.run(['--resume', 'yr']);
    assert.match(
      gone.stderr,
      /^raymond: .*yr\.json: the workflow of run yr is gone \(.*resume\.yaml: no such file or directory\); restore it to resume\n$/,
    );
    assert.equal(
      readFileSync(join(box.dir, '.raymond/state/yr.json'), 'utf8'),
      before,
      'no change to the state file',
    );
    writeFileSync(path, flaky('edited'));
    const ok = await box.run(['--resume', 'yr', '--allow-changes', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(summary(ok).results, { main: 'edited' });
  });

  it('lint and diagram read a YAML workflow', async () => {
    writeFileSync(
      join(box.dir, 'lint.yaml'),
      'states:\n  START:\n    prompt: Go on with <goto>NEXT</goto>\n    allowed_transitions: [{ tag: goto, target: NEXT.sh }]\n    colour: red\n  NEXT:\n    sh: echo "<goto>MISSING</goto>"\n',
    );
    const lint = await box.run(['lint', 'lint.yaml']);
    assert.equal(lint.code, EXIT.failed);
    assert.equal(
      lint.stdout,
      [
        'lint.yaml:NEXT.sh: error unknown-target: <goto> target "MISSING" is not a state of this workflow',
        'lint.yaml:START.md: warning unknown-field: unknown key "colour" in state "START" (known: prompt, sh, ps1, bat, allowed_transitions, model, fallback_models, effort, timeout, force_implicit, budget, tools, allowed_tools, disallowed_tools, mcp_servers, mcp_inherit, append_system_prompt, add_dirs, permission_mode, on_denial)',
        'lint.yaml: 1 error, 1 warning in 2 states',
        '',
      ].join('\n'),
    );
    const diagram = await box.run(['diagram', 'lint.yaml']);
    assert.equal(diagram.code, 0, diagram.stderr);
    assert.match(diagram.stdout, /start --> START_md\n/);
    assert.match(diagram.stdout, /START_md -->\|goto\| NEXT_sh\n/);
  });
});

describe('raymond convert', () => {
  it('converts a folder to YAML that runs to the same results and agent history', async () => {
    const tour = join(ROOT, 'workflows/examples/tour');
    const converted = await box.run(['convert', tour, '--output', 'tour.yaml']);
    assert.equal(converted.code, 0, converted.stderr);
    assert.equal(converted.stdout, 'wrote tour.yaml (tour as YAML)\n');
    const stdout = await box.run(['convert', tour]);
    assert.equal(
      stdout.stdout,
      readFileSync(join(box.dir, 'tour.yaml'), 'utf8'),
      'stdout without --output',
    );
    const history = (id: string) =>
      box
        .state(id)
        .agents.map(({ id: agent, state, status, stack, attributes, input }) => ({
          agent,
          state,
          status,
          stack,
          attributes,
          input,
        }))
        .sort((a, b) => a.agent.localeCompare(b.agent));
    const folder = await box.run([
      tour,
      '--json',
      '--workflow-id',
      'conv-dir',
      '--max-parallel',
      '1',
    ]);
    const yaml = await box.run([
      'tour.yaml',
      '--json',
      '--workflow-id',
      'conv-yaml',
      '--max-parallel',
      '1',
    ]);
    assert.equal(yaml.code, 0, yaml.stderr);
    assert.deepEqual(summary(yaml).results, summary(folder).results);
    assert.deepEqual(history('conv-yaml'), history('conv-dir'));
  });

  it('refuses a folder it cannot convert faithfully, in one line, writing nothing', async () => {
    const wf = box.write({ 'START.md': 'prompt', 'START.sh': 'echo' }, 'both');
    const r = await box.run(['convert', wf, '--output', 'both.yaml']);
    assert.equal(r.code, EXIT.invalid);
    assert.equal(
      r.stderr,
      `raymond: ${wf}/START.sh: state START is both START.md and START.sh; a YAML state is either a prompt or a script: rename one\n`,
    );
    assert.equal(existsSync(join(box.dir, 'both.yaml')), false);
  });
});

/** A "billion laughs": six levels of nine aliases each, 531,441 strings once expanded. */
const BOMB = [
  'a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
  ...'bcdef'
    .split('')
    .map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdef'[i]}`).join(', ')}]`),
].join('\n');

describe('YAML alias bombs', () => {
  const refusal =
    /^raymond: (\S+): YAML with too many aliases \(\*name\) to expand: refusing it \(an alias bomb would take all memory\)\n$/;

  it('a .yaml workflow holding one is one line naming the file, exit 64, for a run, lint, diagram and serve', async () => {
    const file = join(box.dir, 'bomb.yaml');
    writeFileSync(file, `${BOMB}\nstates:\n  START:\n    sh: echo "<result>x</result>"\n`);
    for (const args of [['bomb.yaml'], ['lint', 'bomb.yaml'], ['diagram', 'bomb.yaml']]) {
      const r = await box.run(args);
      assert.equal(r.code, EXIT.invalid, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, refusal, args.join(' '));
      assert.equal(refusal.exec(r.stderr)![1], 'bomb.yaml');
    }
  });

  it('in frontmatter it is malformed frontmatter naming the state file: lint, convert and a run; diagram draws on', async () => {
    const wf = box.write({ 'START.md': `---\n${BOMB}\n---\nSay <result>x</result>\n` }, 'fm-bomb');
    const start = join(wf, 'START.md');
    const lint = await box.run(['lint', wf]);
    assert.equal(lint.code, 1, lint.stdout + lint.stderr);
    assert.equal(lint.stderr, '');
    assert.match(
      lint.stdout,
      /START\.md: error bad-frontmatter: malformed YAML frontmatter: YAML with too many aliases/,
    );
    // diagram draws a state whose frontmatter is malformed, as it always did; it no longer fails on a bomb.
    const diagram = await box.run(['diagram', wf]);
    assert.equal(diagram.code, 0, diagram.stderr);
    assert.doesNotMatch(diagram.stderr, /internal error|ReferenceError/);
    const convert = await box.run(['convert', wf]);
    assert.equal(convert.code, EXIT.invalid, convert.stderr);
    assert.equal(convert.stderr.split('\n').length, 2, convert.stderr);
    assert.ok(
      convert.stderr.includes(start) && convert.stderr.includes('YAML with too many aliases'),
      convert.stderr,
    );
    assert.doesNotMatch(convert.stderr, /internal error|ReferenceError|\n\s+at /);
    // The real claude passes the preflight; the frontmatter fails before any turn would start it.
    const run = await box.run([wf, '--claude-bin', join(ROOT, 'node_modules/.bin/claude')]);
    assert.equal(run.code, 1, run.stderr);
    assert.ok(
      run.stderr.includes(
        `raymond: ${start}: malformed YAML frontmatter: YAML with too many aliases`,
      ),
      run.stderr,
    );
  });

  it('in a workflow.yaml manifest it is one line naming the manifest', async () => {
    const wf = box.write(
      {
        'workflow.yaml': `${BOMB}\nbackend: claude\n`,
        'START.sh': '#!/bin/sh\necho "<result>x</result>"\n',
      },
      'manifest-bomb',
    );
    const r = await box.run([join(wf, 'START.sh')]);
    assert.equal(r.code, EXIT.invalid, r.stderr);
    assert.equal(
      r.stderr,
      `raymond: ${join(wf, 'workflow.yaml')}: YAML with too many aliases (*name) to expand: refusing it (an alias bomb would take all memory)\n`,
    );
  });
});
