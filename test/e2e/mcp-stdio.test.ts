import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, Sandbox, readRunState } from '../helpers/cli.js';
import { McpSession } from '../helpers/mcp-client.js';

const EXAMPLES = join(ROOT, 'workflows/examples');
const box = new Sandbox();
let root: string;

before(() => {
  // A root of its own beside the bundled examples: a run that takes a while, in two steps.
  root = box.write(
    {
      'slow/START.sh': '#!/usr/bin/env bash\nsleep 1\necho "<goto>NEXT.sh</goto>"\n',
      'slow/NEXT.sh':
        '#!/usr/bin/env bash\nsleep "${RAYMOND_INPUT:-3}"\necho "<result>slow-done</result>"\n',
    },
    'roots',
  );
});
after(() => box.remove());

const start = (args: string[] = [], opts: Parameters<typeof McpSession.start>[2] = {}) =>
  McpSession.start(box.dir, ['--root', EXAMPLES, '--root', root, ...args], opts);

describe('raymond mcp: workflows as the tools of an MCP server on stdio (SDK client)', () => {
  it('lists each workflow as a tool named by its id, described by its manifest, with its input block as the schema', async () => {
    const mcp = await start();
    try {
      const { tools } = await mcp.client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of [
        'approval',
        'classify',
        'count-words',
        'countdown',
        'slow',
        'raymond_status',
        'raymond_answer',
        'raymond_cancel',
      ])
        assert.ok(names.includes(n), `${n} in ${names.join(' ')}`);
      const approval = tools.find((t) => t.name === 'approval')!;
      assert.match(
        approval.description!,
        /^Writes a plan for a change, waits until a person approves it/,
      );
      assert.deepEqual(approval.inputSchema.required, ['input']);
      assert.deepEqual(Object.keys(approval.inputSchema.properties!).sort(), [
        'budget',
        'budget_hard',
        'input',
        'model',
        'wait_seconds',
        'working_directory',
      ]);
      assert.match(
        JSON.stringify(approval.inputSchema.properties!.input),
        /Change: The change to plan/,
      );
      assert.equal(tools.find((t) => t.name === 'slow')!.inputSchema.required, undefined);
    } finally {
      await mcp.close();
    }
  });

  it('a call runs the workflow and returns its result as text, with run id, status and cost as structured content, and progress on the way', async () => {
    const mcp = await start();
    try {
      const r = await mcp.call('count-words', { input: 'one two three' });
      assert.equal(r.isError, false);
      assert.equal(r.text, "3 words in 'one two three' (agent main)");
      assert.equal(r.report.status, 'completed');
      assert.equal(r.report.cost_usd, 0);
      assert.equal(r.report.steps, 1);
      assert.match(r.report.run_id, /^count-words-[0-9a-f]{8}$/);
      assert.ok(
        mcp.progress.some((p) => p.startsWith('main: START.sh -> result')),
        mcp.progress.join('\n'),
      );
      // The server's own run: its state file in .raymond/mcp-state/.
      const state = readRunState(join(box.dir, '.raymond/mcp-state', `${r.report.run_id}.json`));
      assert.equal(state.status, 'completed');
      assert.equal(state.results.main, r.text);
    } finally {
      await mcp.close();
    }
  });

  it('an ask goes to the person by elicitation when the client can take it; answered, the call returns the result', async () => {
    const questions: string[] = [];
    const mcp = await start([], {
      elicit: (req) => {
        questions.push(req.message);
        return { action: 'accept', content: { answer: 'approve' } };
      },
    });
    try {
      const r = await mcp.call('approval', { input: 'rename the loader' });
      assert.equal(r.report.status, 'completed', r.text);
      assert.match(r.text, /^implemented: rename the loader \(plan /);
      assert.equal(questions.length, 1);
      assert.match(
        questions[0]!,
        /^approval \(run approval-[0-9a-f]{8}\) asks:\n\nPlan for "rename the loader"/,
      );
    } finally {
      await mcp.close();
    }
  });

  it('a declined elicitation returns the question; without elicitation too; raymond_answer answers and follows the run', async () => {
    const declining = await start([], { elicit: () => ({ action: 'decline' }) });
    try {
      const r = await declining.call('approval', { input: 'split the parser' });
      assert.equal(r.report.status, 'asking');
      assert.equal(r.report.asks.length, 1);
      assert.match(r.text, /is waiting for an answer/);
      assert.match(r.text, /raymond_answer/);
    } finally {
      await declining.close();
    }
    const mcp = await start();
    try {
      const r = await mcp.call('approval', { input: 'rename the loader' });
      assert.equal(r.report.status, 'asking');
      const ask = r.report.asks[0]!;
      assert.match(ask.question, /Reply approve to carry it out/);
      assert.ok(r.text.includes(`ask_id ${ask.ask_id}: ${ask.question}`), r.text);
      const change = await mcp.call('raymond_answer', {
        run_id: r.report.run_id,
        ask_id: ask.ask_id,
        answer: 'also update the docs',
      });
      // A change request: the plan is folded and asked again.
      assert.equal(change.report.status, 'asking', change.text);
      const again = change.report.asks[0]!;
      assert.notEqual(again.ask_id, ask.ask_id);
      const done = await mcp.call('raymond_answer', {
        run_id: r.report.run_id,
        ask_id: again.ask_id,
        answer: 'approve',
      });
      assert.equal(done.report.status, 'completed', done.text);
      assert.match(done.text, /^implemented: rename the loader/);
      const stale = await mcp.call('raymond_answer', {
        run_id: r.report.run_id,
        ask_id: ask.ask_id,
        answer: 'approve',
      });
      assert.equal(stale.isError, true);
      assert.equal(stale.text, `ask "${ask.ask_id}" is not pending in run "${r.report.run_id}"`);
    } finally {
      await mcp.close();
    }
  });

  it('a run longer than the wait goes on: the call returns its id, raymond_status follows it to the end', async () => {
    const mcp = await start(['--wait', '1']);
    try {
      const r = await mcp.call('slow', { input: '3' });
      assert.equal(r.isError, false);
      assert.equal(r.report.status, 'running');
      assert.match(
        r.text,
        new RegExp(
          `^run ${r.report.run_id} is still running after 1 s .*call raymond_status with \\{"run_id": "${r.report.run_id}"\\}`,
        ),
      );
      let status = r;
      for (let i = 0; i < 30 && status.report.status !== 'completed'; i++)
        status = await mcp.call('raymond_status', { run_id: r.report.run_id });
      assert.equal(status.report.status, 'completed');
      assert.equal(status.text, 'slow-done');
      assert.equal(status.report.steps, 2);
    } finally {
      await mcp.close();
    }
  });

  it('raymond_cancel stops a run: cancelled, and not resumed at the next start', async () => {
    const mcp = await start();
    let id: string;
    try {
      const r = await mcp.call('slow', { input: '30', wait_seconds: 0 });
      id = r.report.run_id;
      assert.equal(r.report.status, 'running');
      const c = await mcp.call('raymond_cancel', { run_id: id });
      assert.equal(c.report.status, 'cancelled', c.text);
      const again = await mcp.call('raymond_cancel', { run_id: id });
      assert.equal(again.isError, true);
      assert.match(again.text, /already ended \(cancelled\)/);
    } finally {
      await mcp.close();
    }
    const next = await start();
    try {
      const s = await next.call('raymond_status', { run_id: id, wait_seconds: 0 });
      assert.equal(s.report.status, 'cancelled');
    } finally {
      await next.close();
    }
  });

  it('the client going away leaves a run resumable; the next server resumes it to the end', async () => {
    const first = await start();
    const r = await first.call('slow', { input: '8', wait_seconds: 2 });
    assert.equal(r.report.status, 'running');
    await first.close();
    assert.match(
      first.stderr,
      /the client closed stdin: stopping; \d+ unfinished run\(s\) stay resumable/,
    );
    const file = join(box.dir, '.raymond/mcp-state', `${r.report.run_id}.json`);
    assert.notEqual(readRunState(file).status, 'completed');
    const second = await start();
    try {
      assert.match(second.stderr, /\([1-9]\d* resumed\)/);
      const s = await second.call('raymond_status', { run_id: r.report.run_id });
      assert.equal(s.report.status, 'completed', s.text);
      assert.equal(s.text, 'slow-done');
      assert.equal(readRunState(file).status, 'completed');
    } finally {
      await second.close();
    }
  });

  it("bad arguments, unknown runs and paths outside --workdir are the tool's error in one line; nothing runs", async () => {
    const workdir = box.write({ 'inside/.keep': '' }, 'work');
    const mcp = await start(['--workdir', workdir]);
    try {
      const extra = await mcp.call('count-words', { input: 'a', colour: 'red' });
      assert.equal(extra.isError, true);
      assert.match(extra.text, /^invalid arguments: /);
      assert.match(extra.text, /colour/);
      const missing = await mcp.call('approval', {});
      assert.equal(missing.isError, true);
      assert.match(missing.text, /^invalid arguments: .*input/);
      const outside = await mcp.call('count-words', { input: 'a', working_directory: box.dir });
      assert.equal(outside.isError, true);
      assert.equal(outside.text, `working_directory "${box.dir}" is outside --workdir ${workdir}`);
      const inside = await mcp.call('count-words', { input: 'a b', working_directory: 'inside' });
      assert.equal(inside.report.status, 'completed');
      const unknown = await mcp.call('raymond_status', { run_id: 'nope-1' });
      assert.equal(unknown.isError, true);
      assert.equal(unknown.text, 'no run "nope-1" on this server');
      await assert.rejects(mcp.call('no-such-workflow', {}), /unknown tool "no-such-workflow"/);
      for (const t of [extra, missing, outside, unknown])
        assert.equal(t.text.split('\n').length, 1);
    } finally {
      await mcp.close();
    }
    assert.ok(!existsSync(join(workdir, '.raymond')));
  });
});
