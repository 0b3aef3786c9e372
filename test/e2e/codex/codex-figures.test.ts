import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sh, summary } from '../../helpers/cli.js';
import { CodexSandbox } from '../../helpers/codex-sandbox.js';

const box = new CodexSandbox();
before(async () => {
  await box.start();
  writeFileSync(
    join(box.dir, '.raymond', 'config.toml'),
    '[raymond.prices."mock-model"]\ninput = 2\ncached_input = 0.5\noutput = 10\n',
  );
});
after(() => box.stop());

const CODEX = 'backend: codex\n';

/** Every number of the state file's costs: finite and not negative, or the run is refused as damaged. */
function costsOf(id: string): number[] {
  const state = JSON.parse(
    readFileSync(join(box.dir, '.raymond', 'state', `${id}.json`), 'utf8'),
  ) as {
    total_cost_usd: unknown;
    agents?: Record<string, { session_costs?: Record<string, unknown> }>;
  };
  const out = [state.total_cost_usd as number];
  for (const a of Object.values(state.agents ?? {}))
    out.push(...(Object.values(a.session_costs ?? {}) as number[]));
  return out;
}

describe('run-wide --model and --effort, checked against each backend', () => {
  it('--model gpt-5-codex --effort max run a Codex workflow; on a Claude workflow, one line naming the backend', async () => {
    const s = box.server;
    s.on('CDX-RUNWIDE', { text: '<result>ran</result>' });
    const wf = box.write({ 'workflow.yaml': CODEX, 'START.md': 'CDX-RUNWIDE' }, 'runwide');
    const r = await box.run([wf, '--json', '--model', 'gpt-5-codex', '--effort', 'max']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'ran');
    assert.equal(s.requestsFor('CDX-RUNWIDE')[0]!.model, 'gpt-5-codex');
    const claude = box.write({ 'START.md': 'never sent <result>x</result>' }, 'runwideclaude');
    for (const [flag, value] of [
      ['--model', 'gpt-5-codex'],
      ['--effort', 'max'],
    ] as const) {
      const no = await box.run([claude, flag, value]);
      assert.equal(no.code, 64, no.stderr);
      assert.match(
        no.stderr,
        new RegExp(`^raymond: ${flag}: .*\\(this workflow runs on Claude Code\\)\\n$`),
      );
      assert.equal(no.stderr.trim().split('\n').length, 1, no.stderr);
    }
  });

  it('a Claude workflow that calls a Codex one takes them: the Codex callee uses them, and a Claude state without its own model is refused naming --model', async () => {
    const s = box.server;
    s.on('CDX-MIXED', { text: '<result>callee ran</result>' });
    box.write({ 'workflow.yaml': CODEX, 'START.md': 'CDX-MIXED' }, 'mixed/cdx');
    // The caller's states are scripts: only the Codex callee asks a model.
    const caller = box.write(
      {
        'START.sh': sh('echo \'<call-workflow return="END">../cdx/</call-workflow>\''),
        'END.sh': sh('echo "<result>caller: $RAYMOND_RESULT</result>"'),
      },
      'mixed/caller',
    );
    const r = await box.run([caller, '--json', '--model', 'gpt-5-codex', '--effort', 'max']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'caller: callee ran');
    const [request] = s.requestsFor('CDX-MIXED');
    assert.equal(request!.model, 'gpt-5-codex');
    // A Claude state of the same run with no model of its own: refused at its step, naming where the value came from.
    const claudeState = box.write(
      {
        'START.sh': sh('echo \'<call-workflow return="ASK">../cdx/</call-workflow>\''),
        'ASK.md': 'never sent <result>x</result>',
      },
      'mixed/claudestate',
    );
    const no = await box.run([claudeState, '--json', '--model', 'gpt-5-codex']);
    assert.notEqual(no.code, 0, no.stderr);
    assert.match(
      no.stdout + no.stderr,
      /ASK\.md: --model: model "gpt-5-codex" is not opus, sonnet, haiku.*\(this state's workflow runs on Claude Code\)/,
    );
  });
});

describe('backend: codex, a turn whose usage is nonsense', () => {
  for (const [name, usage] of [
    ['negative token counts', { input: -5_000_000, output: -10 }],
  ] as const)
    it(`${name}: one warning, charged $0, and the run goes on and stays readable`, async () => {
      const s = box.server;
      const tag = `CDX-NONSENSE-${name.length}`;
      s.on(`${tag}-1`, { text: '<goto>TWO</goto>', usage });
      s.on(`${tag}-2`, { text: '<result>done</result>' });
      const id = `nonsense${name.length}`;
      const wf = box.write(
        { 'workflow.yaml': CODEX, 'START.md': `${tag}-1`, 'TWO.md': `${tag}-2` },
        id,
      );
      const r = await box.run([wf, '--json', '--workflow-id', id]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'done');
      for (const c of costsOf(id)) assert.ok(Number.isFinite(c) && c >= 0, `cost ${c}`);
      assert.equal(r.stderr.match(/cannot be priced/g)?.length, 2, r.stderr);
      const status = await box.run(['--status', id]);
      assert.equal(status.code, 0, status.stderr);
    });
});

/**
 * A codex that prints what the real one never does (its Responses client
 * refuses a count over 2^63): lines that are JSON but not objects, fields of
 * the wrong type, and a turn whose usage is 1e308 tokens.
 */
const GARBAGE_CODEX = `#!/usr/bin/env node
if (process.argv.includes('--version')) { console.log('codex-cli 0.171.0'); process.exit(0); }
process.stdin.resume();
process.stdin.on('end', () => {
  const lines = [
    'null', '42', '[1,2]', '"text"', 'true',
    '{"type":"thread.started","thread_id":"garbage-thread-1"}',
    '{"type":"item.completed","item":null}',
    '{"type":"item.completed","item":{"type":"file_change","status":7,"changes":"x"}}',
    '{"type":"error","message":5}',
    '{"type":"turn.completed"',
    '{"type":"item.completed","item":{"type":"agent_message","text":"<result>survived</result>"}}',
    '{"type":"turn.completed","usage":{"input_tokens":1e308,"cached_input_tokens":0,"output_tokens":1e308}}',
  ];
  process.stdout.write(lines.join('\\n') + '\\n');
});
`;

describe('backend: codex, a stream of garbage (a fake codex: a fault the real one does not make)', () => {
  it('lines that are not objects are counted and skipped; 1e308 tokens is one warning, charged $0', async () => {
    const bin = join(box.dir, '.garbage-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'codex'), GARBAGE_CODEX);
    chmodSync(join(bin, 'codex'), 0o755);
    const wf = box.write({ 'workflow.yaml': CODEX, 'START.md': 'anything' }, 'garbage');
    const r = await box.run([wf, '--json', '--workflow-id', 'garbage'], {
      PATH: `${bin}${delimiter}${box.env().PATH}`,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'survived');
    assert.doesNotMatch(r.stderr, /TypeError|internal error/);
    assert.equal(r.stderr.match(/cannot be priced/g)?.length, 1, r.stderr);
    assert.match(r.stderr, /input_tokens 1e\+308/);
    for (const c of costsOf('garbage')) assert.ok(Number.isFinite(c) && c >= 0, `cost ${c}`);
    const status = await box.run(['--status', 'garbage']);
    assert.equal(status.code, 0, status.stderr);
  });
});
