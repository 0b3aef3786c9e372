import { strict as assert } from 'node:assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT } from '../helpers/cli.js';

const SCRIPT = join(ROOT, 'scripts/practice-model.mjs');

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
      server!.stdout!.on(
        'data',
        (d: Buffer) => ((out += String(d)), /raymond\(\)/.test(out) && ok()),
      ),
    );
    const url = /^export ANTHROPIC_BASE_URL=(\S+)$/m.exec(out)![1]!;
    assert.match(
      out,
      new RegExp(`^export HOME=${join(dir, '.practice-home')}$`, 'm'),
      'Claude Code gets a home beside the rules',
    );
    assert.match(out, /^export PATH=.*node_modules\/\.bin:\$PATH$/m);
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
});
