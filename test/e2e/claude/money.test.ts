import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

function near(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} vs ${expected}`);
}

describe('cost, budget and tools', () => {
  it('charges each step its own cost: the total over goto, call and function chains is the true sum', async () => {
    const s = box.server;
    // The price of one API call of the default usage, as this claude computes it.
    s.on('UNIT-PRICE', { text: '<result>x</result>' });
    const unit = summary(
      await box.run([box.write({ 'START.md': 'UNIT-PRICE' }, 'unit'), '--json']),
    ).total_cost_usd;
    assert.ok(unit > 0);

    s.on('COST-1', { text: '<goto>C2</goto>' });
    s.on('COST-2', { text: '<call return="C5">C3</call>' });
    s.on('COST-3', { text: '<goto>C4</goto>' });
    s.on('COST-4', { text: '<result>r</result>' });
    s.on('COST-5', { text: '<function return="C7">C6</function>' });
    s.on('COST-6', (r) =>
      r.afterTool
        ? { text: '<result>f</result>' }
        : { toolUse: { name: 'Bash', input: { command: 'true', description: 'nothing' } } },
    );
    s.on('COST-7', { text: '<goto>C8</goto>' });
    s.on('COST-8', { text: '<result>end</result>' });
    const files: Record<string, string> = { 'START.md': 'COST-1' };
    for (let i = 2; i <= 8; i++) files[`C${i}.md`] = `COST-${i}`;
    const start = s.requests.length;
    const r = await box.run(
      [
        box.write(files, 'cost'),
        '--json',
        '--workflow-id',
        'cost',
        '--dangerously-skip-permissions',
      ],
      { IS_SANDBOX: '1' },
    );
    assert.equal(r.code, 0, r.stderr);
    const calls = s.requests.slice(start).filter((q) => q.main).length;
    assert.equal(calls, 9, 'eight turns, one of them with a tool call');
    near(summary(r).total_cost_usd, calls * unit, 'total');
    near(box.state('cost').total_cost_usd, calls * unit, 'state file total');
  });

  it('the budget stops a self-loop: exit 3, status budget_exceeded, no step after the one that crossed it', async () => {
    const s = box.server;
    s.on('LOOP-FOREVER', {
      text: '<goto>START</goto>',
      usage: { input_tokens: 50_000, output_tokens: 100 },
    });
    const start = s.requests.length;
    const r = await box.run([
      box.write({ 'START.md': 'LOOP-FOREVER' }, 'loop'),
      '--json',
      '--budget',
      '1',
      '--workflow-id',
      'loop',
    ]);
    assert.equal(r.code, 3, r.stderr);
    const out = summary(r);
    assert.equal(out.status, 'budget_exceeded');
    assert.match(out.error!, /the budget of \$1\.00 is spent/);
    const turns = s.requests.slice(start).filter((q) => q.main).length;
    const perTurn = out.total_cost_usd / turns;
    assert.ok(out.total_cost_usd > 1, 'passed the budget');
    assert.ok(out.total_cost_usd - perTurn <= 1, 'stopped at the first step past the budget');
    const state = box.state('loop');
    assert.equal(state.status, 'budget_exceeded');
    assert.equal(state.agents[0]!.status, 'active', 'the agent stays resumable');
  });

  it('tools run under --dangerously-skip-permissions with IS_SANDBOX=1, in the agent directory', async () => {
    box.server.on('USE-TOOL', (r) =>
      r.afterTool
        ? { text: '<result>wrote it</result>' }
        : {
            toolUse: {
              name: 'Bash',
              input: {
                command: 'echo made-by-claude > tool-output.txt',
                description: 'write a file',
              },
            },
          },
    );
    const r = await box.run(
      [box.write({ 'START.md': 'USE-TOOL' }, 'tools'), '--json', '--dangerously-skip-permissions'],
      { IS_SANDBOX: '1' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(join(box.dir, 'tool-output.txt'), 'utf8'), 'made-by-claude\n');
    assert.match(r.stderr, /\[main\] \[Bash\] echo made-by-claude > tool-output\.txt/);
  });

  it(
    "Claude Code's refusal of --dangerously-skip-permissions as root fails the run at once, in one line suggesting IS_SANDBOX=1",
    { skip: process.getuid?.() !== 0 && 'needs root' },
    async () => {
      const r = await box.run(
        [
          box.write({ 'START.md': 'ROOT-REFUSAL' }, 'root'),
          '--dangerously-skip-permissions',
          '--json',
        ],
        { IS_SANDBOX: '' },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        summary(r).error!,
        /--dangerously-skip-permissions cannot be used with root\/sudo privileges for security reasons.*set IS_SANDBOX=1/,
      );
      assert.equal(summary(r).status, 'failed');
      assert.doesNotMatch(r.stderr, /retrying/);
      assert.equal(existsSync(join(box.dir, 'never')), false);
    },
  );
});
