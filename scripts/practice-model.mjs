#!/usr/bin/env node
// A practice stand-in for the Anthropic Messages API and OpenAI's Responses API, for "Write your
// first workflow" (docs/first-workflow.md): the real `claude` (POST /v1/messages) and the real
// `codex` (POST /v1/responses) talk to it on 127.0.0.1, one server and one port for both, and it
// answers each prompt from a JSON file of rules, so a newcomer can run markdown workflows offline,
// with no account. It is not a model: it never reads a prompt beyond finding a rule's text in it.
//
//   node scripts/practice-model.mjs RULES.json [--port N] [--tokens]
// --tokens: report tokens as a model would (a token per 4 characters of the request and of the
// reply), so that runs cost what Claude Code (or Raymond's price table, for Codex) prices them at.
//
// RULES.json is a list of {"when": "text found in the prompt", "reply": "the answer"};
// the first rule whose `when` the prompt contains wins. Dependency-free on purpose.
// A rule may give "steps" instead of "reply", to call tools (an MCP server's, Codex's shell): step N
// answers after N tool results, each {"tool": NAME, "input": {...}} or {"reply": TEXT}; {{field}} in
// them is filled from the last tool result (a JSON object's fields, {{ask_id}} its first ask's, or
// {{result}}: the text).
//
// Codex: the prompt is the text of the last user `message` item (not its <environment_context>);
// a tool step becomes a `function_call` of that name with the input as its JSON arguments, so
// {"tool": "exec_command", "input": {"cmd": "ls"}} runs a shell command, and tool results are the
// `function_call_output` items after the prompt. The server writes .practice-home/.codex/config.toml
// (rewritten at each start, for the port): with CODEX_HOME set as printed, `codex exec` uses a provider
// "practice" at this server. Or give it the provider with -c flags: model_provider="practice",
// model_providers.practice.base_url="http://127.0.0.1:PORT/v1", .wire_api="responses".
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { codexConfig, responsesTurn, streamResponse } from './practice-model-responses.mjs';

/** What a prompt that no rule matches gets back: plain words, no tag, so the run says what went wrong. */
const UNMATCHED = 'The practice model has no rule for this prompt (add one to your rules file).';

function usage(message) {
  process.stderr.write(
    `practice-model: ${message}\nusage: node scripts/practice-model.mjs RULES.json [--port N] [--tokens]\n`,
  );
  process.exit(64);
}

/** Reads and checks the rules file: a JSON list of {when, reply} strings. */
function loadRules(path) {
  let rules;
  try {
    rules = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    usage(`${path}: ${e instanceof SyntaxError ? `not JSON: ${e.message}` : e.message}`);
  }
  if (!Array.isArray(rules))
    usage(`${path}: the rules must be a JSON list of {"when": "...", "reply": "..."}`);
  rules.forEach((r, i) => {
    if (typeof r?.when !== 'string' || (typeof r?.reply !== 'string' && !Array.isArray(r?.steps)))
      usage(`${path}: rule ${i + 1} needs "when" and "reply", both strings (or "steps", a list)`);
    (r.steps ?? []).forEach((step, j) => {
      if (typeof step?.reply !== 'string' && typeof step?.tool !== 'string')
        usage(`${path}: rule ${i + 1}, step ${j + 1} needs "reply" or "tool"`);
    });
  });
  return rules;
}

function parseArgs(argv) {
  let file;
  let port = 0;
  let tokens = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tokens') tokens = true;
    else if (argv[i] === '--port') {
      port = Number(argv[++i]);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        usage(`--port wants a port number, got ${argv[i]}`);
    } else if (argv[i]?.startsWith('-')) usage(`unknown option ${argv[i]}`);
    else if (file === undefined) file = argv[i];
    else usage(`one rules file only (got ${file} and ${argv[i]})`);
  }
  if (file === undefined) usage('name a rules file');
  // `npm run` starts scripts in the package's folder; INIT_CWD is where the user typed the command.
  const base =
    process.env.npm_lifecycle_event === 'practice-model'
      ? (process.env.INIT_CWD ?? process.cwd())
      : process.cwd();
  return { file: resolve(base, file), port, tokens };
}

/** The texts of a message's content (a string, or blocks). */
function texts(content) {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
}

/** The prompt of this turn: the last text of the last user message that is not a tool result. */
function promptOf(body) {
  const users = (body.messages ?? []).filter((m) => m.role === 'user');
  const plain = users
    .reverse()
    .find((m) => !(Array.isArray(m.content) && m.content.some((b) => b?.type === 'tool_result')));
  return texts(plain?.content).at(-1) ?? '';
}

/**
 * The tool results of this turn (after its prompt), oldest first, as texts. Any user message
 * without a tool result starts a new turn, a plain string included: Claude Code sends a resumed
 * session's new prompt as one after the turn's first request, and the previous turn's results
 * must not count towards its steps.
 */
function toolResults(body) {
  const results = [];
  for (const m of body.messages ?? []) {
    if (m.role !== 'user') continue;
    const blocks = Array.isArray(m.content)
      ? m.content.filter((b) => b?.type === 'tool_result')
      : [];
    if (blocks.length === 0) results.length = 0;
    for (const b of blocks) results.push(texts(b.content).join(''));
  }
  return results;
}

/** Fills {{field}} in a step's strings from the last tool result. */
function fill(value, last) {
  let fields = { result: last ?? '' };
  try {
    const json = JSON.parse(last ?? '');
    if (json && typeof json === 'object')
      fields = { ...fields, ...json, ask_id: json.asks?.[0]?.ask_id ?? '' };
  } catch {
    // A result that is not JSON is {{result}} alone.
  }
  if (typeof value === 'string')
    return value.replace(/\{\{(\w+)\}\}/g, (_, k) => String(fields[k] ?? ''));
  if (Array.isArray(value)) return value.map((v) => fill(v, last));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, last)]));
  return value;
}

/**
 * Answers as the Messages API streams: one text block (or, for a step that
 * calls a tool, one tool_use block), then the end of the turn. No tokens
 * unless --tokens (`size`: the request's characters): it costs $0.
 */
function stream(res, model, text, size = 0, tool = undefined) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type, data) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = tokens
    ? { input_tokens: Math.ceil(size / 4), output_tokens: Math.ceil(text.length / 4) }
    : { input_tokens: 0, output_tokens: 0 };
  send('message_start', {
    message: {
      id: `msg_practice_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  if (tool) {
    const block = {
      type: 'tool_use',
      id: `toolu_practice_${Date.now()}`,
      name: tool.name,
      input: {},
    };
    send('content_block_start', { index: 0, content_block: block });
    const json = JSON.stringify(tool.input ?? {});
    send('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: json },
    });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  }
  send('content_block_stop', { index: 0 });
  const stop_reason = tool ? 'tool_use' : 'end_turn';
  send('message_delta', { delta: { stop_reason, stop_sequence: null }, usage });
  send('message_stop', {});
  res.end();
}

/**
 * This turn's step, the same for both APIs: the first rule the prompt matches, its reply, or,
 * for a rule with steps, step N after N tool results, filled from the last one.
 */
function answer(prompt, results) {
  // The rules are read again for every turn, so an edit takes effect without a restart.
  const rule = loadRules(file).find((r) => prompt.includes(r.when));
  process.stderr.write(
    `practice-model: ${rule ? `rule "${rule.when}"` : 'no rule matched'} <- ${JSON.stringify(prompt.slice(0, 60))}\n`,
  );
  if (!rule) return { reply: UNMATCHED };
  if (!rule.steps) return { reply: rule.reply };
  return fill(rule.steps[Math.min(results.length, rule.steps.length - 1)], results.at(-1));
}

const { file, port, tokens } = parseArgs(process.argv.slice(2));
loadRules(file);
const server = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const responses = req.url?.startsWith('/v1/responses');
  if (req.method !== 'POST' || !(responses || req.url?.startsWith('/v1/messages')))
    return void res.writeHead(404).end();
  if (req.url.startsWith('/v1/messages/count_tokens'))
    return void res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"input_tokens":0}');
  let body;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return void res.writeHead(400).end();
  }
  const size = Buffer.concat(chunks).length;
  // Side requests (Claude Code's title or summary, any Codex request without tools) get a plain "ok".
  const plain =
    (!Array.isArray(body.tools) || body.tools.length === 0) &&
    !(Array.isArray(body.input) && body.input.some((item) => item?.type === 'additional_tools'));
  if (responses) {
    if (plain) return streamResponse(res, body.model, { reply: 'ok' }, 0, tokens);
    const { prompt, results } = responsesTurn(body);
    return streamResponse(res, body.model, answer(prompt, results), size, tokens);
  }
  if (plain) return stream(res, body.model, 'ok');
  const step = answer(promptOf(body), toolResults(body));
  if (step.tool) return stream(res, body.model, '', size, { name: step.tool, input: step.input });
  stream(res, body.model, step.reply, size);
});
server.listen(port, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  // Claude Code keeps its sessions and MCP servers under CLAUDE_CONFIG_DIR and Codex under CODEX_HOME:
  // a home of their own beside the rules keeps practice sessions out of yours, while HOME (and so
  // `~` in the lines a user types next) stays theirs.
  const home = join(dirname(file), '.practice-home');
  mkdirSync(join(home, '.codex'), { recursive: true });
  writeFileSync(join(home, '.codex', 'config.toml'), codexConfig(url));
  const repo = resolve(new URL('..', import.meta.url).pathname);
  // `raymond` and `ray` as executables on PATH, not shell functions: other programs start them too
  // (`claude mcp add raymond -- raymond mcp ...` runs the command itself).
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['raymond', 'ray']) {
    rmSync(join(bin, name), { force: true });
    symlinkSync(join(repo, 'dist/src/cli/main.js'), join(bin, name));
  }
  process.stdout.write(
    [
      `# practice model on ${url}, rules from ${file}; paste these lines into another terminal:`,
      `export ANTHROPIC_BASE_URL=${url}`,
      'export ANTHROPIC_API_KEY=practice',
      'export DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1',
      `export CLAUDE_CONFIG_DIR=${join(home, '.claude')} CODEX_HOME=${join(home, '.codex')}`,
      `export PATH=${bin}:${join(repo, 'node_modules/.bin')}:$PATH`,
      '',
    ].join('\n'),
  );
});
