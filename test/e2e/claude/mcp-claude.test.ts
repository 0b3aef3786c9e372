import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import type { ApiRequest } from '../../helpers/api-server.js';

const box = new ClaudeSandbox();
const EXAMPLES = join(ROOT, 'workflows/examples');
let slowRoot: string;

before(async () => {
  await box.start();
  slowRoot = box.write(
    {
      'slow/START.sh': '#!/usr/bin/env bash\nsleep 1\necho "<goto>NEXT.sh</goto>"\n',
      'slow/NEXT.sh': '#!/usr/bin/env bash\nsleep 3\necho "<result>slow-done-77</result>"\n',
    },
    'roots',
  );
  const s = box.server;
  // The bundled classify example's own states, run by raymond mcp's runs through the same scripted API.
  s.on('You triage support tickets', {
    text: '<function return="ROUTE.md" input="The app crashes when I save">CLASSIFY.md</function>',
  });
  s.on('Classify this support ticket', { text: '<result>BUG</result>' });
  s.on('routing note', { text: '<result>BUG: engineering, a crash on save</result>' });
});
after(() => box.stop());

/** An `.mcp.json`-style file naming the built `raymond mcp` as a stdio server called raymond. */
function mcpConfig(name: string, extra: string[] = []): string {
  const file = join(box.dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        raymond: {
          command: process.execPath,
          args: [CLI, 'mcp', '--root', EXAMPLES, '--root', slowRoot, ...extra],
        },
      },
    }),
  );
  return file;
}

/** What the session's stream-json shows: each tool call with its input, each tool result's text, and the final text. */
interface Transcript {
  calls: Array<{ name: string; input: Record<string, unknown> }>;
  results: string[];
  final: string;
}

/** `claude -p PROMPT` with raymond as its MCP server and the server's tools allowed, as a user runs it. */
async function claude(prompt: string, config: string): Promise<Transcript> {
  const r = await execa(
    'claude',
    [
      '-p',
      prompt,
      '--mcp-config',
      config,
      '--strict-mcp-config',
      '--allowedTools',
      'mcp__raymond',
      '--output-format',
      'stream-json',
      '--verbose',
    ],
    {
      cwd: box.dir,
      // MCP tools listed in the request (not deferred behind ToolSearch), so the scripted model calls one by name.
      env: box.env({ ENABLE_TOOL_SEARCH: 'false' }),
      reject: false,
      stdin: 'ignore',
      timeout: 180_000,
    },
  );
  assert.equal(r.exitCode, 0, String(r.stderr) + String(r.stdout).slice(-2000));
  const t: Transcript = { calls: [], results: [], final: '' };
  for (const line of String(r.stdout).split('\n').filter(Boolean)) {
    const m = JSON.parse(line) as {
      type: string;
      result?: string;
      message?: {
        content?: Array<{ type: string; name?: string; input?: unknown; content?: unknown }>;
      };
    };
    if (m.type === 'result') t.final = m.result ?? '';
    for (const b of m.message?.content ?? []) {
      if (b.type === 'tool_use')
        t.calls.push({ name: b.name!, input: b.input as Record<string, unknown> });
      if (b.type === 'tool_result')
        t.results.push(
          typeof b.content === 'string'
            ? b.content
            : (b.content as Array<{ text?: string }>).map((c) => c.text ?? '').join(''),
        );
    }
  }
  return t;
}

/**
 * A tool result as Claude Code shows it to the model: Raymond's structured
 * content (the tool has an output schema), whose `message` is the text.
 */
interface Shown {
  message: string;
  run_id: string;
  status: string;
  result?: string;
  asks: Array<{ ask_id: string; question: string }>;
}
const shown = (text: string) => JSON.parse(text) as Shown;

/** The last tool result the model was shown in a request. */
const lastShown = (r: ApiRequest) => {
  const json = r.transcript
    .split('\n')
    .filter((l) => l.startsWith('{"message"'))
    .at(-1);
  return json === undefined ? undefined : shown(json);
};

/** Requests of one session after a tool ran, by the user prompt's marker. */
const afterTool = (marker: string) => (r: ApiRequest) => r.prompt.includes(marker) && r.afterTool;
const firstTurn = (marker: string) => (r: ApiRequest) => r.prompt.includes(marker) && !r.afterTool;

describe('Claude Code calls Raymond workflows through raymond mcp (real claude, scripted API)', () => {
  it('calls the bundled classify workflow as a tool and gets its result', async () => {
    const s = box.server;
    s.on(firstTurn('MCP-CLASSIFY'), {
      toolUse: { name: 'mcp__raymond__classify', input: { input: 'The app crashes when I save' } },
    });
    s.on(afterTool('MCP-CLASSIFY'), (r) => ({
      text: `The workflow answered: ${lastShown(r)?.result ?? 'nothing'}`,
    }));
    const t = await claude(
      'MCP-CLASSIFY: run the classify workflow on my ticket',
      mcpConfig('default'),
    );
    assert.deepEqual(t.calls, [
      { name: 'mcp__raymond__classify', input: { input: 'The app crashes when I save' } },
    ]);
    const result = shown(t.results[0]!);
    assert.equal(result.message, 'BUG: engineering, a crash on save');
    assert.equal(result.status, 'completed');
    assert.match(result.run_id, /^classify-[0-9a-f]{8}$/);
    assert.equal(t.final, 'The workflow answered: BUG: engineering, a crash on save');
    // The run is the server's own: its state file in the project's .raymond/mcp-state/.
    const [state] = box
      .states('.raymond/mcp-state')
      .filter((x) => x.scope.path.endsWith('classify'));
    assert.equal(state!.status, 'completed');
    assert.ok(state!.total_cost_usd > 0, 'the run priced its claude turns');
  });

  it('a long run returns its id; Claude Code follows it with raymond_status to completion', async () => {
    const s = box.server;
    s.on(firstTurn('MCP-SLOW'), { toolUse: { name: 'mcp__raymond__slow', input: {} } });
    s.on(afterTool('MCP-SLOW'), (r) => {
      const last = lastShown(r)!;
      if (last.status === 'completed') return { text: `finished: ${last.result}` };
      return {
        toolUse: { name: 'mcp__raymond__raymond_status', input: { run_id: last.run_id } },
      };
    });
    const t = await claude('MCP-SLOW: run the slow workflow', mcpConfig('wait1', ['--wait', '1']));
    assert.equal(t.calls[0]!.name, 'mcp__raymond__slow');
    const first = shown(t.results[0]!);
    assert.equal(first.status, 'running');
    assert.match(
      first.message,
      /^run slow-[0-9a-f]{8} is still running after 1 s .*raymond_status/,
    );
    const runId = first.run_id;
    assert.ok(t.calls.length >= 2);
    for (const c of t.calls.slice(1))
      assert.deepEqual(c, { name: 'mcp__raymond__raymond_status', input: { run_id: runId } });
    assert.equal(shown(t.results.at(-1)!).result, 'slow-done-77');
    assert.equal(t.final, 'finished: slow-done-77');
  });

  it('a question is returned with its ask id and answered through raymond_answer', async () => {
    const s = box.server;
    s.on(firstTurn('MCP-APPROVE'), {
      toolUse: { name: 'mcp__raymond__approval', input: { input: 'rename the loader' } },
    });
    s.on(afterTool('MCP-APPROVE'), (r) => {
      const last = lastShown(r)!;
      if (last.status === 'completed') return { text: 'approved and implemented' };
      return {
        toolUse: {
          name: 'mcp__raymond__raymond_answer',
          input: { run_id: last.run_id, ask_id: last.asks[0]!.ask_id, answer: 'approve' },
        },
      };
    });
    const t = await claude('MCP-APPROVE: plan and approve my change', mcpConfig('default'));
    assert.equal(t.calls.length, 2);
    const asking = shown(t.results[0]!);
    assert.equal(asking.status, 'asking');
    assert.match(asking.message, /is waiting for an answer/);
    assert.match(asking.asks[0]!.question, /Reply approve to carry it out/);
    assert.deepEqual(t.calls[1], {
      name: 'mcp__raymond__raymond_answer',
      input: { run_id: asking.run_id, ask_id: asking.asks[0]!.ask_id, answer: 'approve' },
    });
    assert.match(shown(t.results[1]!).result!, /^implemented: rename the loader \(plan /);
    assert.equal(t.final, 'approved and implemented');
  });
});
