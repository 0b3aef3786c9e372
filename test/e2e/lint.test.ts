import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { CHECKS, type CheckId } from '../../src/analysis/lint-checks-table.js';
import { ROOT, Sandbox, sh, type CliResult } from '../helpers/cli.js';
import { makeZip } from '../helpers/make-zip.js';

const box = new Sandbox();
after(() => box.remove());

const FIXTURES = join(ROOT, 'test/fixtures/lint');
const EXAMPLES = join(ROOT, 'workflows/examples');

interface Report {
  findings: Array<{ check: string; severity: string; file: string; message: string }>;
  errors: number;
  warnings: number;
  infos: number;
}

function report(r: CliResult): Report {
  try {
    return JSON.parse(r.stdout) as Report;
  } catch {
    throw new Error(`stdout is not one JSON object:\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

describe('raymond lint', () => {
  it('has one fixture per check, named after it', () => {
    // A check only a YAML workflow can trigger has a `<check>.yaml` fixture.
    assert.deepEqual(
      readdirSync(FIXTURES)
        .map((f) => f.replace(/\.yaml$/, ''))
        .sort(),
      Object.keys(CHECKS).sort(),
    );
  });

  for (const check of Object.keys(CHECKS) as CheckId[]) {
    it(`${check}: the fixture triggers exactly that check, as ${CHECKS[check]}`, async () => {
      const wf = existsSync(join(FIXTURES, check))
        ? join(FIXTURES, check)
        : join(FIXTURES, `${check}.yaml`);
      // Info findings show only at --level info (scripts are all info findings there).
      const level = CHECKS[check] === 'info' ? ['--level', 'info'] : [];
      const json = await box.run(['lint', wf, '--json', ...level]);
      assert.equal(json.code, CHECKS[check] === 'error' ? 1 : 0, json.stderr);
      assert.equal(json.stderr, '');
      const r = report(json);
      assert.deepEqual(
        r.findings.map((f) => f.check),
        [check],
        json.stdout,
      );
      const [finding] = r.findings;
      assert.deepEqual(Object.keys(finding!).sort(), ['check', 'file', 'message', 'severity']);
      assert.equal(finding!.severity, CHECKS[check]);
      assert.ok(finding!.file.startsWith(wf), `${finding!.file} is under ${wf}`);
      assert.doesNotMatch(finding!.message, /\n/);
      assert.equal(r.errors, CHECKS[check] === 'error' ? 1 : 0);
      assert.equal(r.warnings, CHECKS[check] === 'warning' ? 1 : 0);

      const text = await box.run(['lint', wf, ...level]);
      assert.equal(text.code, json.code);
      const lines = text.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 2, text.stdout);
      assert.equal(
        lines[0],
        `${finding!.file}: ${finding!.severity} ${check}: ${finding!.message}`,
      );
      const infos = level.length > 0 ? `, ${r.infos} info` : '';
      assert.match(
        lines[1]!,
        new RegExp(`^${wf}: ${r.errors} errors?, ${r.warnings} warnings?${infos} in \\d+ states?$`),
      );
    });
  }

  it('--level: error shows errors only, info shows everything; the counts are of every finding', async () => {
    const wf = join(FIXTURES, 'fork-next-mismatch');
    const errorsOnly = report(await box.run(['lint', wf, '--json', '--level', 'error']));
    assert.deepEqual(
      [errorsOnly.findings.length, errorsOnly.errors, errorsOnly.warnings, errorsOnly.infos],
      [0, 0, 1, 4],
    );
    const all = report(await box.run(['lint', wf, '--json', '--level', 'info']));
    assert.deepEqual(all.findings.map((f) => f.check).sort(), [
      'fork-next-mismatch',
      ...Array(4).fill('script-state-no-static-analysis'),
    ]);
    const bad = await box.run(['lint', wf, '--level', 'debug']);
    assert.equal(bad.code, 64);
  });

  for (const example of readdirSync(EXAMPLES).sort()) {
    it(`the ${example} example lints with no finding`, async () => {
      // A skill package keeps its states in states/, beside SKILL.md and run.sh.
      const path = existsSync(join(EXAMPLES, example, 'states'))
        ? join(EXAMPLES, example, 'states')
        : join(EXAMPLES, example);
      const r = await box.run(['lint', path, '--json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const { findings, errors, warnings } = report(r);
      assert.deepEqual({ findings, errors, warnings }, { findings: [], errors: 0, warnings: 0 });
    });
  }

  it('prints findings workflow-wide first, then by file, and counts them', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<goto>NOPE</goto>"', 'echo "<call>B.sh</call>"'),
        'A.md': '---\nmodel: gpt-4\ncolour: red\n---\nDo it.',
        'B.sh': sh('echo "<result>b</result>"'),
      },
      'several',
    );
    const r = await box.run(['lint', wf]);
    assert.equal(r.code, 1);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [
      `${wf}/A.md: warning unknown-frontmatter-key: unknown frontmatter key "colour" (known: allowed_transitions, model, fallback_models, effort, timeout, force_implicit, budget, tools, allowed_tools, disallowed_tools, mcp_servers, mcp_inherit, append_system_prompt, add_dirs, permission_mode, on_denial)`,
      `${wf}/A.md: error invalid-model: model "gpt-4" is not opus, sonnet, haiku or a full model name (claude-...)`,
      `${wf}/A.md: warning unreachable-state: no transition leads here from the entry (START.sh)`,
      `${wf}/START.sh: error unknown-target: <goto> target "NOPE" is not a state of this workflow`,
      `${wf}/START.sh: error call-without-return: <call>B.sh</call> has no return="STATE"; Raymond refuses it: name the state where the caller continues`,
      `${wf}: 3 errors, 2 warnings in 3 states`,
    ]);
  });

  it('lints a zip archive like its folder', async () => {
    const zip = join(box.dir, 'broken.zip');
    writeFileSync(
      zip,
      makeZip([{ name: 'wf/START.sh', content: sh('echo "<goto>GONE.sh</goto>"') }]),
    );
    const r = report(await box.run(['lint', zip, '--json']));
    assert.deepEqual(r.findings, [
      {
        check: 'unknown-target',
        severity: 'error',
        file: `${zip}:START.sh`,
        message: '<goto> target "GONE.sh" is not a state of this workflow',
      },
    ]);
  });

  it('a path that is no workflow is one error line and exit 64', async () => {
    const noEntry = join(box.dir, 'no-entry.zip');
    writeFileSync(
      noEntry,
      makeZip([{ name: 'wf/OTHER.sh', content: sh('echo "<result>x</result>"') }]),
    );
    for (const [path, pattern] of [
      [noEntry, /^raymond: .*no-entry\.zip: no entry state: expected 1_START or START/],
      ['nope/missing', /^raymond: nope\/missing: no such file or directory\n$/],
      [
        box.write({ 'notes.txt': 'hi' }, 'empty'),
        /^raymond: .*empty: no entry state: expected 1_START or START/,
      ],
      [join(box.dir, 'empty/notes.txt'), /^raymond: .*notes\.txt: not a workflow/],
    ] as const) {
      const r = await box.run(['lint', path]);
      assert.equal(r.code, 64, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1);
    }
  });

  it('a misspelt tag is named as such, with the tag it was meant as, not as what it left out', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork item=\\"a\\">WORKER</fork>"', 'echo "<jion>DONE</jion>"'),
        'WORKER.sh': sh('echo "<reslt>$item</reslt>"'),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'typos',
    );
    const r = await box.run(['lint', wf]);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, -1), [
      `${wf}/START.sh: error unknown-tag: unknown tag \`<jion>\`: did you mean \`<join>\`?`,
      `${wf}/WORKER.sh: error unknown-tag: unknown tag \`<reslt>\`: did you mean \`<result>\`?`,
    ]);
  });

  it('a usage mistake exits 2', async () => {
    const r = await box.run(['lint']);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /missing required argument 'path'/);
  });
});
