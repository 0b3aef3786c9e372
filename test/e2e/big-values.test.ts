import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** ~330 KB of text with newlines, several-byte characters and markup, but no `"`: it also goes through `input="..."`. */
const PAYLOAD = 'seq 1 16000 | sed "s/$/ é <b>\'x\'<\\/b>/" > "$OUT/expected"';

/** Saves a variable's value as the script received it: from `NAME_FILE` (removed after the step) or from `NAME`. */
function save(name: string, to: string): string {
  return `if [ -n "\${${name}_FILE:-}" ]; then cat "$${name}_FILE" > "$OUT/${to}"; echo "$${name}_FILE" >> "$OUT/files"; stat -c %a "$${name}_FILE" >> "$OUT/modes"; [ -z "\${${name}+set}" ] || echo "${name} still set" >> "$OUT/errors"; else printf %s "$${name}" > "$OUT/${to}"; fi`;
}

describe('values too large for the environment reach scripts through files', () => {
  it('a 300 KB <result> reaches the caller script, and input="..." the next one, intact; the files are private and removed', async () => {
    const out = join(box.dir, 'out1');
    const wf = box.write(
      {
        'START.sh': sh('mkdir -p "$OUT"', 'echo \'<call return="AFTER">CHILD</call>\''),
        'CHILD.sh': sh(PAYLOAD, 'printf "<result>%s</result>" "$(cat "$OUT/expected")"'),
        'AFTER.sh': sh(
          save('RAYMOND_INPUT', 'after-input'),
          save('RAYMOND_RESULT', 'after-result'),
          'printf "<goto input=\\"%s\\">NEXT</goto>" "$(cat "$OUT/after-input")"',
        ),
        'NEXT.sh': sh(save('RAYMOND_INPUT', 'next-input'), 'echo "<result>done</result>"'),
      },
      'big',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'big1'], { OUT: out });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    // $(cat) in CHILD.sh drops the file's last newline; so does every other copy.
    writeFileSync(
      join(out, 'expected'),
      readFileSync(join(out, 'expected'), 'utf8').replace(/\n$/, ''),
    );
    assert.ok(statSync(join(out, 'expected')).size > 300_000);
    for (const got of ['after-input', 'after-result', 'next-input'])
      assert.equal(sha(join(out, got)), sha(join(out, 'expected')), got);
    assert.equal(
      existsSync(join(out, 'errors')),
      false,
      'the variable itself is unset when its value is in a file',
    );
    assert.deepEqual(
      [...new Set(readFileSync(join(out, 'modes'), 'utf8').trim().split('\n'))],
      ['600'],
    );
    const files = readFileSync(join(out, 'files'), 'utf8').trim().split('\n');
    assert.equal(files.length, 3);
    assert.equal(files[0], files[1], 'RAYMOND_INPUT_FILE and RAYMOND_RESULT_FILE name one file');
    for (const f of files) assert.equal(existsSync(f), false, `${f} removed`);
    assert.equal(
      existsSync(join(files[0]!, '..')),
      false,
      "the run's folder is removed with the run",
    );
  });

  it('a large fork attribute reaches the worker as NAME_FILE; small values stay in variables and NAME_FILE is never inherited', async () => {
    const out = join(box.dir, 'out2');
    const wf = box.write(
      {
        'START.sh': sh(
          'mkdir -p "$OUT"',
          PAYLOAD,
          'printf "<fork next=\\"END\\" small=\\"tiny\\" blob=\\"%s\\">W</fork>" "$(cat "$OUT/expected")"',
          'echo "<goto input=\\"short\\">END</goto>"',
        ),
        'W.sh': sh(
          save('blob', 'blob'),
          'echo "small=$small small_FILE=${small_FILE:-unset} input_file=${RAYMOND_INPUT_FILE:-unset}" > "$OUT/worker"',
          'echo "<result>w</result>"',
        ),
        'END.sh': sh(
          'echo "input=$RAYMOND_INPUT input_file=${RAYMOND_INPUT_FILE:-unset}" > "$OUT/end"',
          'echo "<result>end</result>"',
        ),
      },
      'fork',
    );
    // A nested raymond inherits its parent's variables: none of them may pass for a value of ours.
    const r = await box.run([wf, '--json', '--workflow-id', 'big2'], {
      OUT: out,
      RAYMOND_INPUT_FILE: '/etc/passwd',
      small_FILE: '/etc/passwd',
    });
    assert.equal(r.code, 0, r.stderr);
    writeFileSync(
      join(out, 'expected'),
      readFileSync(join(out, 'expected'), 'utf8').replace(/\n$/, ''),
    );
    assert.equal(sha(join(out, 'blob')), sha(join(out, 'expected')));
    assert.equal(
      readFileSync(join(out, 'worker'), 'utf8'),
      'small=tiny small_FILE=unset input_file=unset\n',
    );
    assert.equal(readFileSync(join(out, 'end'), 'utf8'), 'input=short input_file=unset\n');
  });

  it('a value holding a NUL character, which no variable can, reaches the script through a file', async () => {
    const wf = box.write(
      {
        'START.sh': sh('printf \'<goto input="a\\0b">NEXT</goto>\''),
        'NEXT.sh': sh(
          'echo "<result>${RAYMOND_INPUT-unset} $(od -An -c < "$RAYMOND_INPUT_FILE" | tr -s \' \')</result>"',
        ),
      },
      'nul',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'nul']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'unset  a \\0 b');
  });

  it('a run that stopped at a step holding a large input resumes and completes with it', async () => {
    const out = join(box.dir, 'out3');
    const wf = box.write(
      {
        'START.sh': sh(
          'mkdir -p "$OUT"',
          PAYLOAD,
          'printf "<goto input=\\"%s\\">NEXT</goto>" "$(cat "$OUT/expected")"',
        ),
        'NEXT.sh': sh(
          '[ -f "$OUT/ok" ] || { echo "not yet" >&2; exit 9; }',
          save('RAYMOND_INPUT', 'got'),
          'echo "<result>done</result>"',
        ),
      },
      'resume',
    );
    const first = await box.run([wf, '--json', '--workflow-id', 'big3'], { OUT: out });
    assert.equal(first.code, 1);
    assert.match(first.stderr, /exited with code 9; stderr: not yet/);
    writeFileSync(join(out, 'ok'), '');
    const second = await box.run(['--resume', 'big3', '--json'], { OUT: out });
    assert.equal(second.code, 0, second.stderr);
    writeFileSync(
      join(out, 'expected'),
      readFileSync(join(out, 'expected'), 'utf8').replace(/\n$/, ''),
    );
    assert.equal(sha(join(out, 'got')), sha(join(out, 'expected')));
  });
});

describe('output too large to keep', () => {
  it(
    'a script printing 600 MB completes with its result, says its output was cut, and the orchestrator stays under 300 MB',
    { skip: process.platform !== 'linux' },
    async () => {
      const out = join(box.dir, 'out4');
      const wf = box.write(
        {
          'START.sh': sh(
            'mkdir -p "$OUT"',
            "head -c 600000000 /dev/zero | tr '\\0' x",
            "echo '<goto>MEASURE</goto>'",
          ),
          // The step after the big one reads the orchestrator's peak: its script's parent is a spawner, whose parent is the orchestrator.
          'MEASURE.sh': sh(
            "o=$(awk '/^PPid:/ {print $2}' /proc/$PPID/status)",
            'awk \'/^VmHWM:/ {print $2}\' /proc/$o/status > "$OUT/peak-kb"',
            'echo "<result>ok</result>"',
          ),
        },
        'huge',
      );
      // Run as users run it: the bin, with the Node flags of its #! line.
      const r = await execa(CLI, [wf, '--json', '--workflow-id', 'huge'], {
        cwd: box.dir,
        env: { OUT: out },
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
        /warning: \[main\] \S*START\.sh: output was cut: only the last 16 MiB of 572\.2 MiB were kept/,
      );
      assert.doesNotMatch(
        stderr,
        /\n\s+at |RangeError|FATAL|Invalid string length/,
        'no stack trace',
      );
      const peakMb = Number(readFileSync(join(out, 'peak-kb'), 'utf8')) / 1024;
      assert.ok(peakMb > 10 && peakMb < 300, `orchestrator peak RSS ${peakMb.toFixed(0)} MB`);
      const record = readFileSync(join(box.dir, '.raymond/debug/huge/scripts.jsonl'), 'utf8')
        .split('\n')
        .find((l) => l.includes('"state":"START.sh"'))!;
      assert.equal(
        (JSON.parse(record) as { dropped_bytes: number }).dropped_bytes,
        600_000_000 + '<goto>MEASURE</goto>\n'.length - 16 * 2 ** 20,
        'the debug log says how much was cut',
      );
    },
  );

  it('a tag whose start was cut off is reported as such', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          "printf '<result>'",
          "head -c 20000000 /dev/zero | tr '\\0' x",
          "printf '</result>'",
        ),
      },
      'cut-tag',
    );
    const r = await box.run([wf, '--workflow-id', 'cut-tag']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /START\.sh: output has no transition tag .*; output was cut: only the last 16 MiB of 19\.1 MiB were kept/,
    );
  });

  it('20,000 fork attributes: small values fit, counted with their pointers; values that only fit as thousands of NAME_FILEs are one line naming the state file', async () => {
    const fork = (value: string) =>
      sh(
        `v='${value}'`,
        'printf \'<fork next="END"\'',
        'for i in $(seq 1 20000); do printf \' a%d="%s"\' "$i" "$v"; done',
        "printf '>W</fork>\\n'",
      );
    const files = (value: string) => ({
      'START.sh': fork(value),
      'W.sh': sh('echo "<result>$a1 $RAYMOND_ATTR_a20000 ${#RAYMOND_ATTR_a777}</result>"'),
      'END.sh': sh('echo "<result>end</result>"'),
    });
    const small = box.write(files('x'), 'many-small');
    const ok = await box.run([small, '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(summary(ok).results.main_w1, 'x x 1');

    const big = box.write(files('y'.repeat(100)), 'many-big');
    const r = await box.run([big, '--workflow-id', 'many-big']);
    assert.equal(r.code, 1, r.stderr);
    // The worker fails alone (a warning as it happens), and the run with it at the end.
    const line = r.stderr.split('\n').find((l) => l.startsWith('raymond: '));
    assert.match(
      line ?? '',
      /^raymond: 1 worker\(s\) failed and no <join> received the failure: main_w1: \S*many-big\/W\.sh: cannot start the script: its 40\d{3} variables \(fork attributes count twice: as NAME and RAYMOND_ATTR_NAME\) take \d+ bytes of environment even with their values in files, over the 1048576 a step may use; fork with fewer attributes, or pass them in input="\.\.\."$/,
      r.stderr,
    );
    assert.doesNotMatch(r.stderr, /E2BIG/);
  });

  it('a 200,000-character attribute name is one line naming the state file, not ENAMETOOLONG', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'n=$(head -c 200000 /dev/zero | tr "\\0" n)',
          'printf \'<fork next="END" %s="v">W</fork>\\n\' "$n"',
        ),
        'W.sh': sh('echo "<result>w</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'long-name',
    );
    const r = await box.run([wf, '--workflow-id', 'long-name']);
    assert.equal(r.code, 1, r.stderr);
    const line = r.stderr.split('\n').find((l) => l.startsWith('raymond: '));
    assert.match(
      line ?? '',
      /^raymond: 1 worker\(s\) failed and no <join> received the failure: main_w1: \S*long-name\/W\.sh: cannot pass the variable RAYMOND_ATTR_n{27}… \(200013 characters\) to the script: its name is too long for an environment variable/,
      r.stderr.slice(-2000),
    );
    assert.ok(line!.length < 1000, 'the error line does not hold the name');
    assert.doesNotMatch(r.stderr, /ENAMETOOLONG|E2BIG/);
  });
});
