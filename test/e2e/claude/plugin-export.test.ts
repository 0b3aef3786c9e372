import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT, raymond } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import type { ApiRequest, Reply } from '../../helpers/api-server.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const WORKFLOW = join(ROOT, 'workflows/examples/count-words');
const SKILL = 'count-words:count-words';
const TOOL = 'mcp__plugin_count-words_raymond__count-words';

/** Main-loop requests of the session running now; `claude` starts it again at 0. */
let turn = 0;

/**
 * The model's side of one session: it invokes the skill (Claude Code then
 * shows the SKILL.md), calls the plugin's tool, and ends with a text.
 */
function skillThenTool(): Reply {
  turn += 1;
  if (turn === 1) return { toolUse: { name: 'Skill', input: { skill: SKILL } } };
  if (turn === 2) return { toolUse: { name: TOOL, input: { input: 'a b c' } } };
  return { text: 'DONE' };
}

/**
 * `claude -p` with the plugin, as a user runs it: only the Skill tool is
 * allowed on the command line; the skill's `allowed-tools` lets it call the
 * plugin's tools. MCP tools are listed in the request (not deferred behind
 * ToolSearch) so the scripted model can call one by name.
 */
async function claude(args: string[], env: Record<string, string> = {}) {
  turn = 0;
  const r = await execa(
    'claude',
    ['-p', 'count the words of "a b c"', '--allowedTools', 'Skill', ...args],
    {
      cwd: box.dir,
      env: box.env({ ENABLE_TOOL_SEARCH: 'false', ...env }),
      reject: false,
      stdin: 'ignore',
      timeout: 120_000,
    },
  );
  assert.equal(r.exitCode, 0, String(r.stderr));
  return String(r.stdout);
}

/** The main-loop requests of the last session, from its first. */
function lastSession(): ApiRequest[] {
  const main = box.server.requests.filter((r) => r.main);
  const first = main.map((r) => r.afterTool).lastIndexOf(false);
  return main.slice(first);
}

/** A stand-in for `raymond mcp` (test/fixtures/mcp/plugin-stub-server.mjs) as an executable. */
function stubCommand(): string {
  const bin = join(box.dir, 'stub-raymond');
  writeFileSync(
    bin,
    `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, 'test/fixtures/mcp/plugin-stub-server.mjs')}' "$@"\n`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

describe('raymond export claude-plugin, loaded by the real claude (scripted API)', () => {
  const out = join(box.dir, 'plugin');
  const log = join(box.dir, 'stub.log');

  it('writes a plugin that claude plugin validate --strict accepts', async () => {
    const r = await raymond(
      ['export', 'claude-plugin', WORKFLOW, '--out', out, '--command', stubCommand()],
      { cwd: box.dir },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`skill ${SKILL}  tool ${TOOL}`));
    const v = await execa('claude', ['plugin', 'validate', '--strict', out], {
      env: box.env(),
      reject: false,
    });
    assert.equal(v.exitCode, 0, String(v.stdout));
    assert.match(String(v.stdout), /skills: count-words:count-words/);
  });

  it("with --plugin-dir, the skill is listed, its MCP server starts on the plugin's workflows, and the skill may call its tool", async () => {
    box.server.on(() => true, skillThenTool);
    await claude(['--plugin-dir', out], { STUB_LOG: log });
    const session = lastSession();
    const first = session[0]!;
    assert.match(
      first.transcript,
      /- count-words:count-words: Runs the workflow count-words\. .*Raymond workflow "count-words"/,
      'the skill is listed with its description',
    );
    for (const tool of [TOOL, 'mcp__plugin_count-words_raymond__raymond_status'])
      assert.ok(first.tools.includes(tool), `${tool} is offered: ${first.tools.join(', ')}`);
    const started = JSON.parse(readFileSync(log, 'utf8').trim().split('\n')[0]!) as {
      args: string[];
      cwd: string;
      pluginRoot: string;
    };
    assert.deepEqual(started.args, ['mcp', '--root', join(out, 'workflows')]);
    assert.equal(started.cwd, box.dir, "the server runs in the session's folder");
    assert.equal(started.pluginRoot, out, 'CLAUDE_PLUGIN_ROOT is in its environment');
    const called = session.find((r) => r.transcript.includes('stub ran count-words'));
    assert.ok(called, 'the tool ran: its result came back to the model');
    assert.match(called.transcript, /stub ran count-words with \{"input":"a b c"\}/);
    assert.doesNotMatch(called.transcript, /haven't granted it/);
  });

  it('installed with claude plugin install NAME --marketplace DIR, it loads without --plugin-dir', async () => {
    const install = await execa(
      'claude',
      ['plugin', 'install', 'count-words', '--marketplace', out],
      { cwd: box.dir, env: box.env(), reject: false, stdin: 'ignore' },
    );
    assert.equal(install.exitCode, 0, `${String(install.stdout)}\n${String(install.stderr)}`);
    await claude([], { STUB_LOG: log });
    const first = lastSession()[0]!;
    assert.match(first.transcript, /- count-words:count-words: /);
    assert.ok(first.tools.includes(TOOL), first.tools.join(', '));
    const starts = readFileSync(log, 'utf8').trim().split('\n');
    assert.deepEqual(
      (JSON.parse(starts.at(-1)!) as { args: string[] }).args,
      ['mcp', '--root', join(out, 'workflows')],
      'an install from a folder is read where it is',
    );
    const removed = await execa('claude', ['plugin', 'uninstall', 'count-words@count-words'], {
      cwd: box.dir,
      env: box.env(),
      reject: false,
      stdin: 'ignore',
    });
    assert.equal(removed.exitCode, 0, String(removed.stderr));
  });

  it('whose tool runs the workflow through raymond mcp and returns its result', async () => {
    // `raymond` on PATH, as the plugin's default command finds it.
    const bin = join(box.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(CLI, join(bin, 'raymond'));
    const path = `${bin}${delimiter}${box.env().PATH}`;
    const real = join(box.dir, 'real-plugin');
    const r = await raymond(['export', 'claude-plugin', WORKFLOW, '--out', real], {
      cwd: box.dir,
      env: { PATH: path },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', 'no warning: raymond is on PATH');
    await claude(['--plugin-dir', real], { PATH: path });
    const called = lastSession().find((q) => q.transcript.includes("3 words in 'a b c'"));
    assert.ok(
      called,
      `the workflow's result came back: ${lastSession().at(-1)?.transcript.slice(-2000)}`,
    );
  });
});
