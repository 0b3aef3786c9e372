import { strict as assert } from 'node:assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT } from '../helpers/cli.js';

const SCRIPT = join(ROOT, 'scripts/practice-model.mjs');
const CODEX = join(ROOT, 'node_modules/.bin/codex');
/** The last of the lines the practice model prints for another terminal. */
const PRINTED = /^export PATH=.*\$PATH$/m;

/** Starts the practice model in `dir` and waits for its lines; the URL is its base. */
async function startModel(
  dir: string,
  args: string[],
): Promise<{ server: ChildProcess; url: string }> {
  const server = spawn(process.execPath, [SCRIPT, ...args], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((ok) =>
    server.stdout.on('data', (d: Buffer) => ((out += String(d)), PRINTED.test(out) && ok())),
  );
  return { server, url: /^export ANTHROPIC_BASE_URL=(\S+)$/m.exec(out)![1]! };
}

interface ResponsesEvent {
  type: string;
  delta?: string;
  item?: { type: string; name?: string; arguments?: string; content?: { text: string }[] };
  response?: { status: string; usage?: { input_tokens: number; output_tokens: number } };
}

/** One Responses API request as Codex sends it (developer text, its <environment_context>, the prompt, then `after`). */
async function askResponses(
  url: string,
  prompt: string,
  after: unknown[] = [],
  tools: unknown[] = [{ type: 'function', name: 'exec_command' }],
): Promise<ResponsesEvent[]> {
  const res = await fetch(`${url}/v1/responses`, {
    method: 'POST',
    body: JSON.stringify({
      model: 'gpt-5',
      stream: true,
      tools,
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'be brief' }] },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: '<environment_context>fruit</environment_context>' },
          ],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
        ...after,
      ],
    }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as ResponsesEvent);
}

/** The final item of a Responses stream (response.output_item.done). */
function doneItem(events: ResponsesEvent[]): NonNullable<ResponsesEvent['item']> {
  return events.find((e) => e.type === 'response.output_item.done')!.item!;
}

/** One Messages API request as Claude Code sends it, with the reply's streamed text read back. */
async function ask(url: string, prompt: string, tools = [{ name: 'Bash' }]): Promise<string> {
  const res = await fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      stream: true,
      tools,
      messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    }),
  });
  assert.equal(res.status, 200);
  const events = (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: { text?: string } });
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  return events.map((e) => e.delta?.text ?? '').join('');
}

/** One Messages API request with the given messages: the text of the reply, or the tool it calls. */
async function step(
  url: string,
  messages: unknown[],
): Promise<{ text: string; tool?: string; input?: unknown }> {
  const res = await fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      stream: true,
      tools: [{ name: 'Bash' }],
      messages,
    }),
  });
  const events = (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map(
      (l) =>
        JSON.parse(l.slice(6)) as {
          content_block?: { type: string; name?: string };
          delta?: { text?: string; partial_json?: string };
        },
    );
  const tool = events.find((e) => e.content_block?.type === 'tool_use')?.content_block?.name;
  const json = events.map((e) => e.delta?.partial_json ?? '').join('');
  return {
    text: events.map((e) => e.delta?.text ?? '').join(''),
    ...(tool ? { tool, input: JSON.parse(json) as unknown } : {}),
  };
}

describe('scripts/practice-model.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-practice-'));
  let server: ChildProcess | undefined;
  after(() => {
    server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers by the first matching rule, says so plainly when none matches, and prints the lines to paste', async () => {
    const rules = join(dir, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify([
        { when: 'fruit', reply: '<result>first</result>' },
        { when: 'fruit apple', reply: 'never: the rule above wins' },
      ]),
    );
    server = spawn(process.execPath, [SCRIPT, 'rules.json'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    await new Promise<void>((ok) =>
      server!.stdout!.on('data', (d: Buffer) => ((out += String(d)), PRINTED.test(out) && ok())),
    );
    const url = /^export ANTHROPIC_BASE_URL=(\S+)$/m.exec(out)![1]!;
    const home = join(dir, '.practice-home');
    assert.match(
      out,
      new RegExp(`^export CLAUDE_CONFIG_DIR=${home}/\\.claude CODEX_HOME=${home}/\\.codex$`, 'm'),
      "Claude Code and Codex get a home beside the rules; HOME stays the user's",
    );
    assert.doesNotMatch(out, /^export HOME=/m);
    assert.match(out, new RegExp(`^export PATH=${home}/bin:.*node_modules/\\.bin:\\$PATH$`, 'm'));
    // Pasted into a fresh shell, `raymond` is an executable that other programs can start too.
    const pasted = out
      .split('\n')
      .filter((l) => l.startsWith('export '))
      .join('\n');
    const shell = await execa(
      'bash',
      ['-c', `${pasted}\nenv -i PATH="$PATH" sh -c 'raymond --version && ray --version'`],
      { reject: false, stdin: 'ignore' },
    );
    assert.equal(shell.exitCode, 0, shell.stderr);
    assert.match(shell.stdout, /^\d+\.\d+\.\d+\n\d+\.\d+\.\d+$/);
    assert.equal(await ask(url, 'Describe the fruit apple'), '<result>first</result>');
    assert.equal(
      await ask(url, 'something else'),
      'The practice model has no rule for this prompt (add one to your rules file).',
    );
    assert.equal(
      await ask(url, 'fruit', []),
      'ok',
      'side requests without tools get a plain answer',
    );
    // The file is read again for each prompt: an edit counts without a restart.
    writeFileSync(rules, JSON.stringify([{ when: 'fruit', reply: 'edited' }]));
    assert.equal(await ask(url, 'fruit'), 'edited');
  });

  for (const [name, content, says] of [
    ['not JSON', '[{"when": ', /bad\.json: not JSON/],
    ['not a list', '{"when": "a", "reply": "b"}', /must be a JSON list/],
    ['a rule without reply', '[{"when": "a"}]', /rule 1 needs "when" and "reply"/],
  ] as const) {
    it(`refuses a rules file that is ${name} in one line, exit 64`, async () => {
      writeFileSync(join(dir, 'bad.json'), content);
      const r = await execa(process.execPath, [SCRIPT, 'bad.json'], {
        cwd: dir,
        reject: false,
        stdin: 'ignore',
      });
      assert.equal(r.exitCode, 64);
      assert.match(r.stderr, says);
      assert.equal(r.stderr.split('\n')[0]!.startsWith('practice-model: '), true);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  it('refuses a missing file and a bad --port in one line each', async () => {
    const missing = await execa(process.execPath, [SCRIPT, 'nope.json'], {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
    });
    assert.equal(missing.exitCode, 64);
    assert.match(missing.stderr, /^practice-model: .*nope\.json: ENOENT/);
    const port = await execa(process.execPath, [SCRIPT, 'nope.json', '--port', 'x'], {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
    });
    assert.equal(port.exitCode, 64);
    assert.match(port.stderr, /^practice-model: --port wants a port number, got x/);
  });
  it("counts steps from the last prompt, a plain string included (a resumed session's new prompt)", async () => {
    writeFileSync(
      join(dir, 'steps.json'),
      JSON.stringify([
        {
          when: 'fix the file',
          steps: [
            { tool: 'Bash', input: { command: 'echo fixed' } },
            { reply: 'done: {{result}}' },
          ],
        },
      ]),
    );
    const model = await startModel(dir, ['steps.json']);
    try {
      const first = [{ role: 'user', content: 'fix the file' }];
      assert.deepEqual(await step(model.url, first), {
        text: '',
        tool: 'Bash',
        input: { command: 'echo fixed' },
      });
      const called = [
        ...first,
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'fixed' }] },
      ];
      assert.equal((await step(model.url, called)).text, 'done: fixed');
      // The session resumed with a new prompt, as a string: its turn starts again at step 1.
      const resumed = [
        ...called,
        { role: 'assistant', content: [{ type: 'text', text: 'done: fixed' }] },
        { role: 'user', content: 'fix the file again' },
      ];
      assert.deepEqual(await step(model.url, resumed), {
        text: '',
        tool: 'Bash',
        input: { command: 'echo fixed' },
      });
    } finally {
      model.server.kill();
    }
  });
  it('runs the real claude: a resumed session with a new prompt goes through its steps again', async () => {
    // Claude Code sends a resumed turn's prompt as an array of text blocks in its first request,
    // and as a plain string in the next ones: two tool steps find the difference.
    const [a, b] = [join(dir, 'a.txt'), join(dir, 'b.txt')];
    writeFileSync(
      join(dir, 'resume.json'),
      JSON.stringify([
        {
          when: 'fix the files',
          steps: [
            { tool: 'Write', input: { file_path: a, content: 'a\n' } },
            { tool: 'Write', input: { file_path: b, content: 'b\n' } },
            { reply: 'wrote them' },
          ],
        },
      ]),
    );
    const model = await startModel(dir, ['resume.json']);
    const claude = (args: string[]) =>
      execa(
        join(ROOT, 'node_modules/.bin/claude'),
        ['-p', ...args, '--allowedTools', 'Write', '--output-format', 'json'],
        {
          cwd: dir,
          env: {
            ...process.env,
            ANTHROPIC_BASE_URL: model.url,
            ANTHROPIC_API_KEY: 'practice',
            CLAUDE_CONFIG_DIR: join(dir, '.claude-resume'),
            DISABLE_TELEMETRY: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
          },
          reject: false,
          stdin: 'ignore',
          timeout: 120_000,
        },
      );
    try {
      const first = await claude(['fix the files']);
      assert.equal(first.exitCode, 0, first.stderr);
      assert.ok(existsSync(a) && existsSync(b), 'the first turn wrote both files');
      rmSync(a);
      rmSync(b);
      const session = (JSON.parse(first.stdout) as { session_id: string }).session_id;
      const again = await claude(['fix the files again', '--resume', session]);
      assert.equal(again.exitCode, 0, again.stderr);
      assert.equal((JSON.parse(again.stdout) as { result: string }).result, 'wrote them');
      assert.ok(existsSync(a), 'the resumed turn wrote a.txt');
      assert.ok(existsSync(b), 'the resumed turn wrote b.txt');
    } finally {
      model.server.kill();
    }
  });

  it('answers the Responses API (POST /v1/responses) as Codex reads it, with steps as function calls', async () => {
    const rules = join(dir, 'responses.json');
    writeFileSync(
      rules,
      JSON.stringify([
        { when: 'fruit', reply: 'never: the prompt is not the environment context' },
        { when: 'greet', reply: '<result>hi</result>' },
        {
          when: 'count',
          steps: [
            { tool: 'exec_command', input: { cmd: 'echo {"n": 7}' } },
            { reply: '<result>n={{n}}</result>' },
          ],
        },
      ]),
    );
    const model = await startModel(dir, ['responses.json', '--tokens']);
    try {
      const reply = await askResponses(model.url, 'please greet');
      assert.deepEqual(
        reply.map((e) => e.type),
        [
          'response.created',
          'response.output_item.added',
          'response.output_text.delta',
          'response.output_item.done',
          'response.completed',
        ],
      );
      assert.equal(reply[2]!.delta, '<result>hi</result>');
      assert.equal(doneItem(reply).content![0]!.text, '<result>hi</result>');
      const completed = reply.at(-1)!.response!;
      assert.equal(completed.status, 'completed');
      assert.equal(completed.usage!.output_tokens, Math.ceil('<result>hi</result>'.length / 4));
      assert.ok(completed.usage!.input_tokens > 0, '--tokens counts the request');

      const call = doneItem(await askResponses(model.url, 'count them'));
      assert.equal(call.type, 'function_call');
      assert.equal(call.name, 'exec_command');
      assert.deepEqual(JSON.parse(call.arguments!), { cmd: 'echo {"n": 7}' });
      // Codex's header above the command's output is not part of {{result}}: the JSON's fields fill the step.
      const output =
        'Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\n{"n": 7}\n';
      const last = doneItem(
        await askResponses(model.url, 'count them', [
          { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output },
        ]),
      );
      assert.equal(last.content![0]!.text, '<result>n=7</result>');
      assert.equal(
        doneItem(await askResponses(model.url, 'please greet', [], [])).content![0]!.text,
        'ok',
        'a request without tools gets a plain answer',
      );
      const config = readFileSync(join(dir, '.practice-home/.codex/config.toml'), 'utf8');
      assert.match(config, new RegExp(`^base_url = "${model.url}/v1"$`, 'm'));
    } finally {
      model.server.kill();
    }
  });

  it('runs the real Codex CLI offline: a reply rule, and steps that run exec_command in the cwd', async () => {
    writeFileSync(
      join(dir, 'codex.json'),
      JSON.stringify([
        { when: 'say hello', reply: '<result>hello from practice</result>' },
        {
          when: 'make a file',
          steps: [
            { tool: 'exec_command', input: { cmd: 'echo made > made.txt' } },
            { reply: '<result>made</result>' },
          ],
        },
      ]),
    );
    const model = await startModel(dir, ['codex.json', '--tokens']);
    const work = mkdtempSync(join(tmpdir(), 'raymond-practice-codex-'));
    const codexHome = mkdtempSync(join(tmpdir(), 'raymond-practice-codex-home-'));
    const codex = (prompt: string) =>
      execa(
        CODEX,
        [
          'exec',
          '--json',
          '--skip-git-repo-check',
          // No sandbox: what is checked is the practice model's side, and Codex's sandbox (bwrap)
          // cannot start in a container without user namespaces, where the command would not run.
          '-s',
          'danger-full-access',
          '-c',
          'model_provider="practice"',
          '-c',
          'model_providers.practice.name="practice"',
          '-c',
          `model_providers.practice.base_url="${model.url}/v1"`,
          '-c',
          'model_providers.practice.env_key="PRACTICE_KEY"',
          '-c',
          'model_providers.practice.wire_api="responses"',
          '-c',
          'model_providers.practice.request_max_retries=0',
          '-c',
          'model_providers.practice.stream_max_retries=0',
          '-m',
          'gpt-5',
          '-',
        ],
        {
          cwd: work,
          input: prompt,
          reject: false,
          env: { CODEX_HOME: codexHome, PRACTICE_KEY: 'practice' },
        },
      );
    /** The JSON lines Codex printed, and the text of its agent messages. */
    const lines = (stdout: string) =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map(
          (l) =>
            JSON.parse(l) as {
              type: string;
              item?: { type: string; text?: string };
              usage?: { output_tokens: number };
            },
        );
    const said = (stdout: string) =>
      lines(stdout)
        .filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message')
        .map((e) => e.item!.text);
    try {
      const hello = await codex('please say hello');
      assert.equal(hello.exitCode, 0, hello.stderr);
      assert.deepEqual(said(hello.stdout), ['<result>hello from practice</result>']);
      const usage = lines(hello.stdout).find((e) => e.type === 'turn.completed')!.usage!;
      assert.equal(
        usage.output_tokens,
        Math.ceil('<result>hello from practice</result>'.length / 4),
      );

      const made = await codex('make a file');
      assert.equal(made.exitCode, 0, made.stderr);
      assert.deepEqual(said(made.stdout), ['<result>made</result>']);
      assert.ok(existsSync(join(work, 'made.txt')), 'the shell command ran in the cwd');
      assert.equal(readFileSync(join(work, 'made.txt'), 'utf8'), 'made\n');
    } finally {
      model.server.kill();
      rmSync(work, { recursive: true, force: true });
      rmSync(codexHome, { recursive: true, force: true });
    }
  });
});
