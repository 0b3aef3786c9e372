import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stepKey } from '../../../src/executors/step-key.js';
import { raymond, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe("a markdown step's key (real claude)", () => {
  it("reaches the turn's tools through RAYMOND_STEP_KEY_FILE: one key per step, in one live process", async () => {
    const out = join(box.dir, 'keys.txt');
    const bash = (command: string) => ({ toolUse: { name: 'Bash', input: { command } } });
    const record = `echo "$RAYMOND_AGENT_ID $(cat "$RAYMOND_STEP_KEY_FILE") $PPID" >> '${out}'`;
    box.server.on('KEY-ONE', (r) => (r.afterTool ? { text: '<goto>TWO.md</goto>' } : bash(record)));
    box.server.on('KEY-TWO', (r) => (r.afterTool ? { text: '<result>ok</result>' } : bash(record)));
    const wf = box.write({ 'START.md': 'KEY-ONE: first', 'TWO.md': 'KEY-TWO: second' }, 'keys');
    const r = await raymond(
      [wf, '--workflow-id', 'mdkeys', '--dangerously-skip-permissions', '--json'],
      { cwd: box.dir, env: box.env({ IS_SANDBOX: '1' }) },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'ok');
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    assert.deepEqual(
      lines.map(([agent, key]) => [agent, key]),
      [
        ['main', stepKey('mdkeys', { id: 'main', steps: 0 })],
        ['main', stepKey('mdkeys', { id: 'main', steps: 1 })],
      ],
    );
    assert.equal(lines[0]![2], lines[1]![2], 'both steps ran in one live Claude Code process');
  });
});
