import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_ARGV_PROMPT_BYTES,
  claudeArgs,
  promptOnStdin,
} from '../../../src/agents/claude/claude-argv.js';
import { invocationCost } from '../../../src/agents/claude/cost.js';
import {
  MAX_LINE_CHARS,
  StreamReader,
  describeDenial,
} from '../../../src/agents/claude/stream-reader.js';
import type { StreamProgress } from '../../../src/agents/claude/stream-summary.js';

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const result = (extra: Record<string, unknown>) =>
  line({
    type: 'result',
    is_error: false,
    result: 'done <goto>X</goto>',
    session_id: 's2',
    total_cost_usd: 0.5,
    usage: { input_tokens: 100, output_tokens: 10 },
    ...extra,
  });

describe('StreamReader', () => {
  it('takes the session, final text and cost, across chunk boundaries', () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p));
    const text =
      line({ type: 'system', subtype: 'init', session_id: 's1' }) +
      line({
        type: 'assistant',
        message: {
          content: [
            { type: 'text', text: '\n First line\nsecond' },
            { type: 'tool_use', name: 'Bash', input: { command: 'npm test\nmore' } },
          ],
        },
      }) +
      result({});
    for (let i = 0; i < text.length; i += 7) r.write(text.slice(i, i + 7));
    const s = r.end();
    assert.equal(s.sessionId, 's2');
    assert.equal(s.resultText, 'done <goto>X</goto>');
    assert.equal(s.totalCostUsd, 0.5);
    assert.deepEqual(progress, [
      { kind: 'text', text: 'First line' },
      { kind: 'tool', text: '[Bash] npm test' },
      { kind: 'result' },
    ]);
  });

  it('skips lines that are not JSON and reads a last line without newline', () => {
    const r = new StreamReader();
    r.write('garbage\n{"half":\n');
    r.write(result({}).trimEnd());
    const s = r.end();
    assert.equal(s.badLines, 2);
    assert.equal(s.resultText, 'done <goto>X</goto>');
  });

  it('reads a line of several megabytes', () => {
    const r = new StreamReader();
    r.write(result({ result: 'y'.repeat(5_000_000) }));
    assert.equal(r.end().resultText!.length, 5_000_000);
  });

  it('skips a line longer than MAX_LINE_CHARS as it streams by, says so, and reads the lines after it', () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p));
    const piece = 'x'.repeat(2 ** 20);
    r.write(line({ type: 'system', subtype: 'init', session_id: 's1' }));
    for (let i = 0; i < 20; i++) r.write(piece);
    r.write(`\n${result({})}`);
    const s = r.end();
    assert.deepEqual(progress, [{ kind: 'cut', chars: 20 * 2 ** 20 }, { kind: 'result' }]);
    assert.equal(s.cutLines, 1);
    assert.equal(s.resultText, 'done <goto>X</goto>');
    const last = new StreamReader((p) => progress.push(p));
    last.write('y'.repeat(MAX_LINE_CHARS + 1));
    assert.equal(last.end().cutLines, 1, 'a last line without newline too');
  });

  it('detects usage limits from events, assistant errors and the final text', () => {
    const a = new StreamReader();
    a.write(
      line({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1893456000 },
      }),
    );
    assert.deepEqual(a.end().usageLimit, {
      message: 'usage limit reached',
      resetsAt: 1893456000000,
    });
    const allowed = new StreamReader();
    allowed.write(line({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed' } }));
    assert.equal(allowed.end().usageLimit, null);
    const b = new StreamReader();
    b.write(line({ type: 'assistant', error: 'rate_limit', message: { content: [] } }));
    b.write(
      result({
        result: 'API Error: Rate limit reached',
        is_error: true,
        api_error_status: 429,
      }),
    );
    assert.equal(b.end().usageLimit, null, 'a refused rate (429) is never a usage limit');
    assert.deepEqual(b.end().limited, { retries: 0, status: 429, gaveUp: true });
    const c = new StreamReader();
    c.write(result({ result: 'Claude AI usage limit reached|1893456000', is_error: true }));
    assert.equal(c.end().usageLimit?.resetsAt, 1893456000000);
    const d = new StreamReader();
    d.write(
      result({ result: 'I added rate limit handling to the API client. <result>done</result>' }),
    );
    assert.equal(d.end().usageLimit, null, 'an answer about rate limits is not a limit');
  });
});

describe('StreamReader rate limits', () => {
  it("reports each 429 and 529 retry as it happens, with Claude Code's delay; other retries are not limits", () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p));
    const retry = (fields: Record<string, unknown>) =>
      r.write(line({ type: 'system', subtype: 'api_retry', attempt: 1, ...fields }));
    retry({ error_status: 429, error: 'rate_limit', retry_delay_ms: 610 });
    retry({ error_status: 529, error: 'overloaded', retry_delay_ms: 'soon' });
    retry({ error_status: null, error: 'unknown', retry_delay_ms: 500 });
    r.write(result({ result: 'done <result>ok</result>' }));
    assert.deepEqual(
      progress.filter((p) => p.kind === 'limited'),
      [
        { kind: 'limited', status: 429, delayMs: 610 },
        { kind: 'limited', status: 529, delayMs: null },
      ],
    );
    const s = r.end();
    assert.deepEqual(s.limited, { retries: 2, status: 529, gaveUp: false });
    assert.equal(s.usageLimit, null);
  });

  it("reads a model_fallback (overloaded or unavailable) and names the models that answered, not Claude Code's own words", () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p));
    const fallback = (fields: Record<string, unknown>) =>
      r.write(line({ type: 'system', subtype: 'model_fallback', ...fields }));
    fallback({
      trigger: 'overloaded',
      original_model: 'claude-sonnet-5-5',
      fallback_model: 'claude-opus-5-5',
    });
    fallback({
      trigger: 'model_not_found',
      original_model: 'claude-opus-5-5',
      fallback_model: 'claude-haiku-5-5',
    });
    const said = (model: string) =>
      line({ type: 'assistant', message: { model, content: [{ type: 'text', text: 'hi' }] } });
    r.write(said('claude-haiku-5-5') + said('<synthetic>') + said('claude-haiku-5-5'));
    r.write(result({ result: 'done <result>ok</result>' }));
    assert.deepEqual(
      progress.filter((p) => p.kind === 'fallback'),
      [
        { kind: 'fallback', from: 'claude-sonnet-5-5', to: 'claude-opus-5-5', why: 'overloaded' },
        { kind: 'fallback', from: 'claude-opus-5-5', to: 'claude-haiku-5-5', why: 'unavailable' },
      ],
    );
    const s = r.end();
    assert.deepEqual(s.models, ['claude-haiku-5-5']);
    assert.equal(s.fellBack, true);
  });
});

describe('StreamReader denials', () => {
  it('reports each denied call once, as it happens and from the result, with the input of its tool_use', () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p));
    r.write(
      line({
        type: 'assistant',
        message: {
          content: [
            {
              type: 'tool_use',
              id: 't1',
              name: 'Bash',
              input: { command: 'git commit -m "a very long message"' },
            },
          ],
        },
      }),
    );
    r.write(
      line({
        type: 'system',
        subtype: 'permission_denied',
        tool_name: 'Bash',
        tool_use_id: 't1',
        message: 'requires approval',
      }),
    );
    assert.deepEqual(
      progress.filter((p) => p.kind === 'denied'),
      [
        {
          kind: 'denied',
          denial: { tool: 'Bash', input: { command: 'git commit -m "a very long message"' } },
        },
      ],
    );
    r.write(
      result({
        permission_denials: [
          { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'x' } },
          {
            tool_name: 'Write',
            tool_use_id: 't2',
            tool_input: { file_path: '/etc/passwd', content: 'x' },
          },
        ],
      }),
    );
    const s = r.end();
    assert.deepEqual(s.denials.map(describeDenial), [
      'Bash(git commit -m "a very long message")',
      'Write(/etc/passwd)',
    ]);
    assert.equal(
      describeDenial({ tool: 'Bash', input: { command: 'x'.repeat(100) } }),
      `Bash(${'x'.repeat(79)}…)`,
    );
  });
});

describe('StreamReader calls outside the tools', () => {
  it('reports a failed call to a tool the state does not have as denied; a failed call to one it has is not', () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p), new Set(['Read']));
    r.write(
      line({
        type: 'assistant',
        message: {
          content: [
            { type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'ls' } },
            { type: 'tool_use', id: 'b', name: 'Read', input: { file_path: '/x' } },
          ],
        },
      }),
    );
    r.write(
      line({
        type: 'user',
        message: {
          content: [
            { type: 'tool_result', tool_use_id: 'a', is_error: true, content: 'No such tool' },
            { type: 'tool_result', tool_use_id: 'b', is_error: true, content: 'ENOENT' },
          ],
        },
      }),
    );
    assert.deepEqual(r.end().denials, [{ tool: 'Bash', input: { command: 'ls' } }]);
    const open = new StreamReader();
    open.write(
      line({
        type: 'assistant',
        message: { content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: {} }] },
      }),
    );
    open.write(
      line({
        type: 'user',
        message: {
          content: [{ type: 'tool_result', tool_use_id: 'a', is_error: true, content: 'exit 1' }],
        },
      }),
    );
    assert.deepEqual(open.end().denials, [], 'without a tools list, a failed command is no denial');
  });
});

describe('StreamReader failures that cannot heal', () => {
  it('reads not logged in and an unknown model from the assistant error field, and a refused key from the first api_retry', () => {
    const read = (...lines: unknown[]) => {
      const kinds: string[] = [];
      const r = new StreamReader((p) => kinds.push(p.kind));
      for (const l of lines) r.write(line(l));
      return { fatal: r.end().fatal, kinds };
    };
    const login = read({
      type: 'assistant',
      error: 'authentication_failed',
      message: { content: [{ type: 'text', text: 'Not logged in · Please run /login' }] },
    });
    assert.deepEqual(login.fatal, { kind: 'auth', message: 'Not logged in · Please run /login' });
    assert.ok(login.kinds.includes('fatal'));
    assert.equal(
      read({
        type: 'assistant',
        error: 'model_not_found',
        message: { content: [{ type: 'text', text: 'There is an issue with the selected model' }] },
      }).fatal?.kind,
      'model',
    );
    const key = read(
      {
        type: 'system',
        subtype: 'api_retry',
        attempt: 1,
        error_status: 401,
        error: 'authentication_failed',
      },
      {
        type: 'system',
        subtype: 'api_retry',
        attempt: 2,
        error_status: 401,
        error: 'authentication_failed',
      },
    );
    assert.deepEqual(key.fatal, { kind: 'auth', message: 'the API refused the key (HTTP 401)' });
    assert.equal(key.kinds.filter((k) => k === 'fatal').length, 1);
    // Overload and network errors heal: they are Claude Code's to retry, and Raymond's after it.
    assert.equal(
      read({
        type: 'system',
        subtype: 'api_retry',
        attempt: 1,
        error_status: 529,
        error: 'overloaded',
      }).fatal,
      null,
    );
    assert.equal(
      read({
        type: 'assistant',
        message: {
          content: [{ type: 'text', text: 'Not logged in, says the model, but no error field' }],
        },
      }).fatal,
      null,
    );
  });
});

describe('invocationCost', () => {
  const summary = (total: number, invocation: number, reported: number) => ({
    sessionId: 's',
    resultText: '',
    isError: false,
    totalCostUsd: total,
    invocationTokens: invocation,
    reportedTokens: reported,
    usageLimit: null,
    limited: { retries: 0, status: null, gaveUp: false },
    badLines: 0,
    cutLines: 0,
    denials: [],
    fatal: null,
    models: [],
    fellBack: false,
    streamedCostUsd: 0,
  });
  it('charges a fresh session its total', () =>
    assert.equal(invocationCost(summary(0.3, 10, 10), undefined), 0.3));
  it('charges a cumulative resumed session the delta', () =>
    assert.ok(Math.abs(invocationCost(summary(0.5, 10, 30), 0.3) - 0.2) < 1e-12));
  it('charges a per-invocation total in full', () =>
    assert.equal(invocationCost(summary(0.3, 10, 10), 0.3), 0.3));
  it('never charges a negative amount', () =>
    assert.equal(invocationCost(summary(0.1, 10, 30), 0.3), 0.1));
});

describe('claudeArgs', () => {
  it('reserves session ids for fresh and branched turns', () => {
    assert.deepEqual(
      claudeArgs({
        prompt: 'p',
        session: { kind: 'fresh', id: 'X' },
        skipPermissions: false,
      }).slice(4),
      ['--permission-mode', 'acceptEdits', '--session-id', 'X', '--', 'p'],
    );
    assert.deepEqual(
      claudeArgs({
        prompt: 'p',
        session: { kind: 'branch', from: 'A', id: 'Y' },
        skipPermissions: false,
      }).slice(6),
      [
        '--resume',
        'A',
        '--fork-session',
        '--session-id',
        'Y',
        '--system-prompt-snapshot',
        'off',
        '--',
        'p',
      ],
    );
    assert.deepEqual(
      claudeArgs({
        prompt: 'p',
        session: { kind: 'resume', session: 'S' },
        skipPermissions: false,
      }).slice(6),
      ['--resume', 'S', '--system-prompt-snapshot', 'off', '--', 'p'],
    );
  });

  it('leaves a prompt too large for argv out, for stdin; counting bytes, not characters', () => {
    const fits = 'a'.repeat(MAX_ARGV_PROMPT_BYTES);
    assert.equal(
      claudeArgs({
        prompt: fits,
        session: { kind: 'resume', session: 'S' },
        skipPermissions: false,
      }).at(-1),
      fits,
    );
    assert.deepEqual(
      claudeArgs({
        prompt: `${fits}a`,
        session: { kind: 'resume', session: 'S' },
        skipPermissions: false,
      }).slice(6),
      ['--resume', 'S', '--system-prompt-snapshot', 'off'],
    );
    assert.equal(promptOnStdin('é'.repeat(MAX_ARGV_PROMPT_BYTES / 2)), false);
    assert.equal(promptOnStdin('é'.repeat(MAX_ARGV_PROMPT_BYTES / 2 + 1)), true);
  });

  it('orders flags as documented and keeps the prompt one argument after --', () => {
    assert.deepEqual(
      claudeArgs({
        prompt: '--help; rm -rf /',
        session: { kind: 'branch', from: 'abc' },
        model: 'opus',
        effort: 'low',
        skipPermissions: true,
      }),
      [
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--dangerously-skip-permissions',
        '--model',
        'opus',
        '--effort',
        'low',
        '--resume',
        'abc',
        '--fork-session',
        '--system-prompt-snapshot',
        'off',
        '--',
        '--help; rm -rf /',
      ],
    );
  });

  it("gives a state's grant: names to --tools and its patterns pre-approved, its MCP servers alone, its prompt and directories, its mode", () => {
    const args = claudeArgs({
      prompt: 'p',
      session: { kind: 'fresh' },
      skipPermissions: false,
      permissionMode: 'default',
      disallowedTools: ['NotebookEdit'],
      grant: {
        tools: ['Read', 'Bash(git *)', 'Bash(npm test)'],
        allowedTools: ['Edit'],
        disallowedTools: ['WebFetch'],
        mcpConfig: '{"mcpServers":{}}',
        appendSystemPrompt: 'be brief',
        addDirs: ['/a', '/b'],
        permissionMode: 'dontAsk',
      },
    });
    assert.deepEqual(args.slice(4), [
      '--permission-mode',
      'dontAsk',
      '--disallowed-tools',
      'NotebookEdit,WebFetch',
      '--tools',
      'Read,Bash',
      '--allowed-tools',
      'Bash(git *),Bash(npm test),Edit',
      '--mcp-config',
      '{"mcpServers":{}}',
      '--strict-mcp-config',
      '--append-system-prompt',
      'be brief',
      '--add-dir',
      '/a',
      '/b',
      '--system-prompt-snapshot',
      'off',
      '--',
      'p',
    ]);
    assert.deepEqual(
      claudeArgs({
        prompt: 'p',
        session: { kind: 'fresh' },
        skipPermissions: true,
        grant: { tools: [] },
      }).slice(4),
      [
        '--dangerously-skip-permissions',
        '--tools',
        '',
        '--strict-mcp-config',
        '--system-prompt-snapshot',
        'off',
        '--',
        'p',
      ],
    );
    assert.ok(
      !claudeArgs({
        prompt: 'p',
        session: { kind: 'fresh' },
        skipPermissions: false,
        grant: { mcpConfig: '{}', mcpInherit: true },
      }).includes('--strict-mcp-config'),
    );
  });
});
