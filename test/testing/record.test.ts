import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { recordRun } from '../../src/testing/record.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-record-'));
after(() => rmSync(root, { recursive: true, force: true }));

const T = '2026-01-01T00:00:00.000Z';
const step = (agent: string, from: string, to: string, kind: string) =>
  `${T} [${agent}] ${from} -> ${to} (${kind}) cost=$0.000000 total=$0.000000 session=- depth=0`;
const claude = (text: string) =>
  `${JSON.stringify({ type: 'result', result: text, usage: { input_tokens: 0, output_tokens: 0 } })}\n`;

/** A project folder with run `id`: its state file, transitions.log and stream files. */
function project(name: string, status: string, log: string[], streams: Record<string, string>) {
  const dir = join(root, name);
  mkdirSync(join(dir, '.raymond/state'), { recursive: true });
  const debug = join(dir, '.raymond/debug/r1');
  mkdirSync(debug, { recursive: true });
  const agent = (id: string) => ({
    id,
    state: 'END.md',
    cwd: dir,
    status: 'terminated',
    stack: [],
  });
  writeFileSync(
    join(dir, '.raymond/state/r1.json'),
    JSON.stringify({
      version: 1,
      workflow_id: 'r1',
      status,
      scope: { kind: 'yaml', path: join(dir, 'wf.yaml'), entry: 'START.md' },
      started_at: T,
      updated_at: T,
      options: {
        timeout_seconds: 600,
        max_parallel: 2,
        budget_usd: 0,
        model: 'sonnet',
        effort: null,
      },
      total_cost_usd: 0,
      results: { main: 'done', main_w_1: '' },
      agents: [agent('main'), agent('main_w_1')],
    }),
  );
  writeFileSync(join(debug, 'transitions.log'), `${log.join('\n')}\n`);
  for (const [file, text] of Object.entries(streams)) writeFileSync(join(debug, file), text);
  return join(dir, '.raymond/state');
}

describe('recordRun', () => {
  it('builds replies per state in step order (each naming its agent), answers, flags and expect', async () => {
    const state = project(
      'ok',
      'completed',
      [
        `${T} run input: "go"`,
        step('main', 'START.md', 'main_w_1', 'fork'),
        step('main_w_1', 'W_1.md', 'ASK.sh', 'goto'),
        step('main_w_1', 'ASK.sh', 'W_1.md', 'ask'),
        `${T} [main_w_1] ask a1 answered: "yes"`,
        step('main_w_1', 'W_1.md', '(terminated)', 'result'),
        step('main', 'START.md', '(terminated)', 'result'),
      ],
      {
        'main_START_001.jsonl': claude('<fork>W_1</fork>'),
        'main_w_1_W_1_002.jsonl': claude('<goto>ASK.sh</goto>'),
        'main_w_1_W_1_004.jsonl': claude('<result></result>'),
        'main_START_005.jsonl': claude('<result>done</result>'),
      },
    );
    const { spec, workflow } = await recordRun(state, 'r1');
    assert.deepEqual(workflow, { path: join(root, 'ok/wf.yaml'), folder: false });
    assert.deepEqual(spec, {
      input: 'go',
      flags: { model: 'sonnet' },
      replies: {
        START: [
          { agent: 'main', text: '<fork>W_1</fork>' },
          { agent: 'main', text: '<result>done</result>' },
        ],
        W_1: [
          { agent: 'main_w_1', text: '<goto>ASK.sh</goto>' },
          { agent: 'main_w_1', text: '<result></result>' },
        ],
      },
      answers: { ASK: [{ agent: 'main_w_1', text: 'yes' }] },
      expect: {
        status: 'completed',
        exit: 0,
        paths: {
          main: ['START -fork->', 'START -result->'],
          main_w_1: ['W_1 -goto->', 'ASK -ask->', 'W_1 -result->'],
        },
        results: { main: 'done' },
        agents: 2,
      },
    });
  });

  const refused = async (state: string, pattern: RegExp) =>
    assert.rejects(recordRun(state, 'r1'), (err: unknown) => {
      assert.ok(err instanceof RaymondError);
      assert.equal(err.code, 'ERR_RECORD');
      assert.match(`${err.file}: ${err.message}`, pattern);
      return true;
    });

  it('refuses a run that has not ended, and one whose step stream is missing, naming the file', async () => {
    await refused(project('running', 'running', [], {}), /state\/r1\.json: run r1 has not ended/);
    await refused(
      project('cut', 'failed', [step('main', 'START.md', 'END.md', 'goto')], {}),
      /debug\/r1: the stream of main's step 1 of START\.md is missing \(main_START_NNN\.jsonl\)/,
    );
    await refused(join(root, 'nowhere'), /nowhere\/r1\.json: no run with id "r1" here/);
  });
});
