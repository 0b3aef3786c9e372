import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import type { BackendRuntime } from '../../src/backends/backend.js';
import { createCodexExecutor } from '../../src/codex/codex-executor.js';
import type { CodexOptions } from '../../src/codex/codex-options.js';
import { codexSessionPlace, findCodexSession } from '../../src/codex/codex-sessions.js';
import { RaymondError } from '../../src/errors.js';
import type { Execution, ExecutionRequest, SessionPlan } from '../../src/executors/executor.js';
import type { ResolvedGrant } from '../../src/executors/resolved-grant.js';
import { CODEX_TEST_MODEL, CodexSandbox } from '../helpers/codex-sandbox.js';
import { ROOT } from '../helpers/cli.js';

/** The test model's price (USD per million tokens): the default turn (1,000 in, 100 of them cached, 50 out) costs $0.00235. */
const PRICE = { input: 2, cached_input: 0.5, output: 10 };
const TURN_USD = (900 * 2 + 100 * 0.5 + 50 * 10) / 1e6;

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('the codex executor (real codex against a scripted Responses API)', () => {
  let sb: CodexSandbox;
  let work: string;
  const events: RunEvent[] = [];
  let runtime: BackendRuntime;

  before(async () => {
    sb = await new CodexSandbox().start();
    work = join(sb.dir, 'work');
    mkdirSync(work);
    runtime = {
      skipPermissions: false,
      emit: (e) => events.push(e),
      env: sb.env(),
      prices: { [CODEX_TEST_MODEL]: PRICE },
    };
  });
  after(() => sb.stop());

  interface Turn {
    prompt: string;
    session?: SessionPlan;
    costBase?: number;
    model?: string;
    effort?: string;
    grant?: ResolvedGrant;
    options?: CodexOptions;
    cwd?: string;
    env?: Record<string, string>;
  }

  function request(t: Turn): ExecutionRequest {
    return {
      workflowId: 'wf',
      agent: {
        id: 'main',
        state: 'S.md',
        session: null,
        branchFrom: null,
        cwd: t.cwd ?? work,
        attributes: {},
        input: null,
        status: 'active',
      },
      file: 'S.md',
      scope: { display: (f: string) => f, scriptPath: (f: string) => Promise.resolve(f) },
      backend: {
        name: 'codex',
        options: t.options ?? {},
      } as unknown as ExecutionRequest['backend'],
      prompt: t.prompt,
      session: t.session,
      costBase: t.costBase,
      model: 'model' in t ? t.model : CODEX_TEST_MODEL,
      effort: t.effort,
      grant: t.grant,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      env: t.env,
    };
  }

  const run = (t: Turn, rt = runtime): Promise<Execution> =>
    createCodexExecutor(rt).execute(request(t));

  async function failure(t: Turn): Promise<RaymondError> {
    try {
      await run(t);
    } catch (err) {
      assert.ok(err instanceof RaymondError, String(err));
      return err;
    }
    assert.fail('the turn succeeded');
  }

  it('runs a fresh turn: its text, its thread id, its cost from the price table; the prompt verbatim on stdin', async () => {
    sb.server.on('fresh turn', { text: '<goto>B</goto>' });
    const prompt = '-x @/etc/hostname fresh turn';
    const out = await run({ prompt });
    assert.equal(out.output, '<goto>B</goto>');
    assert.match(out.session!, /^[0-9a-f-]{36}$/);
    assert.ok(close(out.costUsd, TURN_USD), String(out.costUsd));
    assert.ok(close(out.sessionTotal!, TURN_USD));
    assert.equal(out.tokens, 1050);
    // Neither a flag nor a file: codex sends a stdin prompt as written.
    assert.equal(sb.server.requestsFor('fresh turn')[0]!.prompt, prompt);
    assert.ok(events.some((e) => e.type === 'print' && e.text === '<goto>B</goto>'));
    assert.ok(findCodexSession(out.session!, sb.env()));
  });

  it('resumes a thread: the next request carries the first turn, and only the new turn is charged', async () => {
    sb.server.on('resume one', { text: 'FIRST-REPLY' });
    sb.server.on('resume two', { text: 'second', usage: { input: 2000, output: 70 } });
    const first = await run({ prompt: 'resume one' });
    const second = await run({
      prompt: 'resume two',
      session: { kind: 'resume', session: first.session! },
      costBase: first.sessionTotal,
    });
    assert.equal(second.session, first.session);
    const req = sb.server.requestsFor('resume two')[0]!;
    assert.ok(req.transcript.includes('FIRST-REPLY'));
    assert.ok(req.inputCount > sb.server.requestsFor('resume one')[0]!.inputCount);
    const own = (2000 * 2 + 70 * 10) / 1e6;
    assert.ok(close(second.costUsd, own), String(second.costUsd));
    assert.ok(close(second.sessionTotal!, TURN_USD + own));
    assert.equal(second.tokens, 2070);
  });

  it('branches a thread (a <call>): a new thread from the caller, charged its own turn; the caller is untouched', async () => {
    sb.server.on('caller', { text: 'CALLER-REPLY' });
    sb.server.on('callee', { text: 'CALLEE-REPLY', usage: { input: 3000, output: 5 } });
    sb.server.on('caller again', { text: 'back' });
    const caller = await run({ prompt: 'caller' });
    const callee = await run({
      prompt: 'callee',
      session: { kind: 'branch', from: caller.session! },
      costBase: caller.sessionTotal,
    });
    assert.notEqual(callee.session, caller.session);
    assert.ok(sb.server.requestsFor('callee')[0]!.transcript.includes('CALLER-REPLY'));
    // codex's fork reports its parent's tokens too (6,000-odd in): the turn is charged its 3,005 only.
    assert.equal(callee.tokens, 3005);
    assert.ok(close(callee.costUsd, (3000 * 2 + 5 * 10) / 1e6), String(callee.costUsd));
    await run({ prompt: 'caller again', session: { kind: 'resume', session: caller.session! } });
    const back = sb.server.requestsFor('caller again')[0]!;
    assert.ok(back.transcript.includes('CALLER-REPLY'));
    assert.ok(!back.transcript.includes('CALLEE-REPLY'));
  });

  it('--continue-session branches the newest thread begun in the folder', async () => {
    const folder = join(sb.dir, 'user-folder');
    mkdirSync(folder);
    sb.server.on("user's own", { text: 'USER-THREAD' });
    sb.server.on('continued', { text: 'ok' });
    const user = await run({ prompt: "user's own", cwd: folder });
    const out = await run({ prompt: 'continued', cwd: folder, session: { kind: 'continue' } });
    assert.notEqual(out.session, user.session);
    assert.ok(sb.server.requestsFor('continued')[0]!.transcript.includes('USER-THREAD'));
    assert.ok(close(out.costUsd, TURN_USD));
  });

  it('under workspace-write writes inside its folder and is refused outside it; plan is read-only even inside', async () => {
    const sibling = join(sb.dir, 'sibling');
    mkdirSync(sibling);
    sb.server.on('write around', {
      command: `touch inside.txt; touch ${sibling}/outside.txt; touch /opt/raymond-codex-test.txt; true`,
      text: 'done',
    });
    sb.server.on('plan write', { command: 'touch planned.txt; true', text: 'done' });
    await run({ prompt: 'write around' });
    assert.ok(existsSync(join(work, 'inside.txt')));
    assert.ok(!existsSync(join(sibling, 'outside.txt')));
    assert.ok(!existsSync('/opt/raymond-codex-test.txt'));
    assert.match(sb.server.requestsFor('write around')[1]!.toolOutput, /Read-only file system/);
    await run({ prompt: 'plan write', grant: { permissionMode: 'plan' } });
    assert.ok(!existsSync(join(work, 'planned.txt')));
    assert.match(sb.server.requestsFor('plan write')[1]!.toolOutput, /Read-only file system/);
  });

  it('reports a command that asks to leave the sandbox, which codex refuses, as a denial', async () => {
    sb.server.on('escalate', {
      command: 'touch /opt/raymond-codex-escalated.txt',
      commandArgs: { sandbox_permissions: 'require_escalated', justification: 'needs /opt' },
      text: 'done',
    });
    const seen: RunEvent[] = [];
    const out = await run({ prompt: 'escalate' }, { ...runtime, emit: (e) => seen.push(e) });
    assert.deepEqual(out.denials, ['shell(a command that asked to run outside the sandbox)']);
    assert.ok(seen.some((e) => e.type === 'permission.denied' && e.tool === 'shell'));
    assert.ok(!existsSync('/opt/raymond-codex-escalated.txt'));
  });

  it('add_dirs makes another folder writable', async () => {
    const extra = join(sb.dir, 'extra');
    mkdirSync(extra);
    sb.server.on('add dir', { command: `touch ${extra}/added.txt; true`, text: 'done' });
    await run({ prompt: 'add dir', grant: { addDirs: [extra] } });
    assert.ok(existsSync(join(extra, 'added.txt')));
  });

  it('gives codex the effort, the appended system prompt (as TOML) and the options', async () => {
    sb.server.on('settings', { text: 'ok' });
    const text = 'Say "hi" \\ then\nnewline\ttab — ünïcode';
    await run({
      prompt: 'settings',
      effort: 'high',
      grant: { appendSystemPrompt: text },
      options: { config: { model_reasoning_summary: 'detailed' } },
    });
    const req = sb.server.requestsFor('settings')[0]!;
    assert.equal(req.effort, 'high');
    assert.ok(req.developer.includes(text), req.developer.slice(-300));
    assert.equal((req.body.reasoning as { summary?: string } | undefined)?.summary, 'detailed');
  });

  it("adds a state's MCP servers to the user's (mcp_inherit) and runs their tools without asking", async () => {
    const sdk = (f: string) =>
      pathToFileURL(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/server', f)).href;
    const script = join(sb.dir, 'mcp-ping.mjs');
    const started = join(sb.dir, 'mcp-started.log');
    writeFileSync(
      script,
      [
        "import { appendFileSync } from 'node:fs';",
        `import { McpServer } from '${sdk('mcp.js')}';`,
        `import { StdioServerTransport } from '${sdk('stdio.js')}';`,
        `appendFileSync(${JSON.stringify(started)}, process.env.PING_WORD + '\\n');`,
        "const server = new McpServer({ name: 'ping', version: '1.0.0' });",
        "server.tool('ping', 'Answers pong', async () => ({ content: [{ type: 'text', text: `pong ${process.env.PING_WORD}` }] }));",
        'await server.connect(new StdioServerTransport());',
      ].join('\n'),
    );
    const node = JSON.stringify(process.execPath);
    const home = join(sb.dir, 'mcp-home');
    sb.writeConfig(home);
    writeFileSync(
      join(home, 'config.toml'),
      `${readFileSync(join(home, 'config.toml'), 'utf8')}[mcp_servers.users]\ncommand = ${node}\nargs = [${JSON.stringify(script)}]\nenv = { PING_WORD = "users" }\n`,
    );
    const mine = { command: process.execPath, args: [script], env: { PING_WORD: 'word "quoted"' } };
    const mcpConfig = JSON.stringify({ mcpServers: { mine } });
    sb.server.on('mcp call', { call: { name: 'ping', namespace: 'mcp__mine' }, text: 'ok' });
    await run({
      prompt: 'mcp call',
      env: { CODEX_HOME: home },
      grant: { mcpConfig, mcpInherit: true },
    });
    const [first, second] = sb.server.requestsFor('mcp call');
    assert.ok(first!.tools.includes('mcp__mine'), first!.tools.join(' '));
    assert.match(second!.toolOutput, /pong word "quoted"/);
    assert.deepEqual(readFileSync(started, 'utf8').split('\n').filter(Boolean).sort(), [
      'users',
      'word "quoted"',
    ]);
    // codex starts the user's servers whatever -c says: without mcp_inherit the grant is refused.
    const err = await failure({ prompt: 'mcp call', grant: { mcpConfig } });
    assert.equal(err.code, 'ERR_CLAUDE_REFUSED');
    assert.match(err.message, /add mcp_inherit: true/);
  });

  it('a rate limit (429) is ERR_CLAUDE_FAILED, retried by the caller', async () => {
    sb.server.on('rate limited', {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { type: 'rate_limit_exceeded', message: 'Rate limit reached' } },
    });
    const err = await failure({ prompt: 'rate limited' });
    assert.equal(err.code, 'ERR_CLAUDE_FAILED');
    assert.match(err.message, /429/);
    assert.match(String(err.details.session), /^[0-9a-f-]{36}$/);
  });

  it('a server error (500) is ERR_CLAUDE_FAILED', async () => {
    sb.server.on('server error', { status: 500 });
    const err = await failure({ prompt: 'server error' });
    assert.equal(err.code, 'ERR_CLAUDE_FAILED');
    assert.match(err.message, /^Codex reported an error: We.re currently experiencing high demand/);
  });

  it('a refused key (401) is ERR_CLAUDE_REFUSED: retrying cannot help', async () => {
    sb.server.on('unauthorized', {
      status: 401,
      body: { error: { message: 'Incorrect API key provided' } },
    });
    const err = await failure({ prompt: 'unauthorized' });
    assert.equal(err.code, 'ERR_CLAUDE_REFUSED');
    assert.match(err.message, /^Codex is not logged in or its API key was refused/);
    assert.match(err.message, /codex login/);
  });

  it('an unknown model (404) is ERR_CLAUDE_REFUSED naming the model', async () => {
    sb.server.on('no such model', {
      status: 404,
      body: { error: { code: 'model_not_found', message: 'The model `gpt-x` does not exist' } },
    });
    const err = await failure({ prompt: 'no such model', model: 'gpt-x' });
    assert.equal(err.code, 'ERR_CLAUDE_REFUSED');
    assert.match(err.message, /Codex cannot use the model "gpt-x"/);
  });

  it('a usage limit is ERR_USAGE_LIMIT with the time it resets', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 3 * 3600;
    sb.server.on('usage limit', {
      status: 429,
      body: { error: { type: 'usage_limit_reached', plan_type: 'plus', resets_at: resetsAt } },
    });
    const err = await failure({ prompt: 'usage limit' });
    assert.equal(err.code, 'ERR_USAGE_LIMIT');
    // codex prints the time to the minute.
    const at = err.details.resetsAt as number;
    assert.ok(Math.abs(at - resetsAt * 1000) < 60_000, `${new Date(at).toISOString()}`);
  });

  it('a stream cut short is ERR_CLAUDE_FAILED', async () => {
    sb.server.on('cut short', { text: 'partial', cut: true });
    const err = await failure({ prompt: 'cut short' });
    assert.equal(err.code, 'ERR_CLAUDE_FAILED');
    assert.match(err.message, /stream disconnected before completion/);
  });

  it('a turn that ends with no message (a refusal) is a reply without tags', async () => {
    sb.server.on('refuse this', { refusal: "I can't help with that." });
    const out = await run({ prompt: 'refuse this' });
    assert.equal(out.output, '');
  });

  it('a model without a price costs nothing and is warned about once', async () => {
    sb.server.on('unpriced', { text: 'ok' });
    const seen: RunEvent[] = [];
    const rt = { ...runtime, emit: (e: RunEvent) => seen.push(e) };
    const exec = createCodexExecutor(rt);
    for (const _ of [1, 2]) {
      const out = await exec.execute(request({ prompt: 'unpriced', model: 'gpt-unpriced' }));
      assert.equal(out.costUsd, 0);
      assert.equal(out.tokens, 1050);
    }
    const warnings = seen.filter((e) => e.type === 'warning');
    assert.equal(warnings.length, 1);
    assert.match(
      (warnings[0] as { text: string }).text,
      /gpt-unpriced.*\[raymond\.prices\."gpt-unpriced"\] input = .*cached_input = .*output = /,
    );
  });

  it('resumes a session whose file was moved to another CODEX_HOME', async () => {
    sb.server.on('moved one', { text: 'MOVED-REPLY' });
    sb.server.on('moved two', { text: 'ok' });
    const first = await run({ prompt: 'moved one' });
    const file = findCodexSession(first.session!, sb.env())!;
    const other = join(sb.dir, 'other-codex-home');
    sb.writeConfig(other);
    const env = { ...sb.env(), CODEX_HOME: other };
    const place = codexSessionPlace(first.session!, basename(file), env);
    mkdirSync(dirname(place), { recursive: true });
    copyFileSync(file, place);
    const second = await run({
      prompt: 'moved two',
      session: { kind: 'resume', session: first.session! },
      env: { CODEX_HOME: other },
    });
    assert.equal(second.session, first.session);
    assert.ok(sb.server.requestsFor('moved two')[0]!.transcript.includes('MOVED-REPLY'));
    assert.ok(close(second.costUsd, TURN_USD));
  });
});
