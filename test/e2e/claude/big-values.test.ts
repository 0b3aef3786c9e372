import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT, sh, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const FAKE = join(ROOT, 'test/fixtures/fake-claude/claude');
const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

describe('large values in markdown states', () => {
  it('a 300 KB {{input}} reaches Claude Code whole (on stdin: one argument holds at most 128 KiB)', async () => {
    box.server.on('BIG-PROMPT', (r) => ({
      text: `<result>${r.prompt.length} ${sha(r.prompt)}</result>`,
    }));
    const out = join(box.dir, 'out-prompt');
    const wf = box.write(
      {
        'START.sh': sh(
          'mkdir -p "$OUT"',
          'seq 1 20000 | sed "s/$/ é <b>x<\\/b>/" > "$OUT/payload"',
          'printf "<goto input=\\"%s\\">ASK</goto>" "$(cat "$OUT/payload")"',
        ),
        'ASK.md': 'BIG-PROMPT {{input}}',
      },
      'prompt',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'big-prompt'], { OUT: out });
    assert.equal(r.code, 0, r.stderr);
    const prompt = `BIG-PROMPT ${readFileSync(join(out, 'payload'), 'utf8').replace(/\n$/, '')}`;
    assert.ok(prompt.length > 300_000);
    assert.equal(summary(r).results.main, `${prompt.length} ${sha(prompt)}`);
  });

  it(
    '600 MB of Claude Code output: the turn completes, the overlong line is skipped and said so, the orchestrator stays under 300 MB',
    { skip: process.platform !== 'linux' },
    async () => {
      const out = join(box.dir, 'out-flood');
      const wf = box.write(
        {
          'START.md': 'flood',
          'MEASURE.sh': sh(
            'mkdir -p "$OUT"',
            "o=$(awk '/^PPid:/ {print $2}' /proc/$PPID/status)",
            'awk \'/^VmHWM:/ {print $2}\' /proc/$o/status > "$OUT/peak-kb"',
            'echo "<result>ok</result>"',
          ),
        },
        'flood',
      );
      const env = {
        OUT: out,
        FAKE_CLAUDE_DIR: mkdtempSync(join(box.dir, 'fake-')),
        FAKE_CLAUDE_MODE: 'flood',
        FAKE_CLAUDE_FLOOD_MB: '600',
        FAKE_CLAUDE_REPLY: '<goto>MEASURE</goto>',
      };
      const r = await execa(CLI, [wf, '--json', '--workflow-id', 'flood', '--claude-bin', FAKE], {
        cwd: box.dir,
        env,
        reject: false,
        stdin: 'ignore',
        timeout: 180_000,
      });
      const stderr = String(r.stderr);
      assert.equal(r.exitCode, 0, stderr);
      assert.equal(
        (JSON.parse(String(r.stdout)) as { results: Record<string, string> }).results.main,
        'ok',
      );
      assert.match(
        stderr,
        /warning: \[main\] \S*START\.md: output was cut: skipped a line of 572\.2 MiB from Claude Code \(at most 16 MiB are read\)/,
      );
      assert.doesNotMatch(
        stderr,
        /\n\s+at |RangeError|FATAL|Invalid string length/,
        'no stack trace',
      );
      const peakMb = Number(readFileSync(join(out, 'peak-kb'), 'utf8')) / 1024;
      assert.ok(peakMb > 10 && peakMb < 300, `orchestrator peak RSS ${peakMb.toFixed(0)} MB`);
    },
  );
});
