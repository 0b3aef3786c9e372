import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, sh, summary } from '../helpers/cli.js';

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
    const wf = box.write({
      'START.sh': sh('mkdir -p "$OUT"', 'echo \'<call return="AFTER">CHILD</call>\''),
      'CHILD.sh': sh(PAYLOAD, 'printf "<result>%s</result>" "$(cat "$OUT/expected")"'),
      'AFTER.sh': sh(save('RAYMOND_INPUT', 'after-input'), save('RAYMOND_RESULT', 'after-result'), 'printf "<goto input=\\"%s\\">NEXT</goto>" "$(cat "$OUT/after-input")"'),
      'NEXT.sh': sh(save('RAYMOND_INPUT', 'next-input'), 'echo "<result>done</result>"'),
    }, 'big');
    const r = await box.run([wf, '--json', '--workflow-id', 'big1'], { OUT: out });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    // $(cat) in CHILD.sh drops the file's last newline; so does every other copy.
    writeFileSync(join(out, 'expected'), readFileSync(join(out, 'expected'), 'utf8').replace(/\n$/, ''));
    assert.ok(statSync(join(out, 'expected')).size > 300_000);
    for (const got of ['after-input', 'after-result', 'next-input']) assert.equal(sha(join(out, got)), sha(join(out, 'expected')), got);
    assert.equal(existsSync(join(out, 'errors')), false, 'the variable itself is unset when its value is in a file');
    assert.deepEqual([...new Set(readFileSync(join(out, 'modes'), 'utf8').trim().split('\n'))], ['600']);
    const files = readFileSync(join(out, 'files'), 'utf8').trim().split('\n');
    assert.equal(files.length, 3);
    assert.equal(files[0], files[1], 'RAYMOND_INPUT_FILE and RAYMOND_RESULT_FILE name one file');
    for (const f of files) assert.equal(existsSync(f), false, `${f} removed`);
    assert.equal(existsSync(join(files[0]!, '..')), false, 'the run\'s folder is removed with the run');
  });

  it('a large fork attribute reaches the worker as NAME_FILE; small values stay in variables and NAME_FILE is never inherited', async () => {
    const out = join(box.dir, 'out2');
    const wf = box.write({
      'START.sh': sh('mkdir -p "$OUT"', PAYLOAD, 'printf "<fork next=\\"END\\" small=\\"tiny\\" blob=\\"%s\\">W</fork>" "$(cat "$OUT/expected")"', 'echo "<goto input=\\"short\\">END</goto>"'),
      'W.sh': sh(save('blob', 'blob'), 'echo "small=$small small_FILE=${small_FILE:-unset} input_file=${RAYMOND_INPUT_FILE:-unset}" > "$OUT/worker"', 'echo "<result>w</result>"'),
      'END.sh': sh('echo "input=$RAYMOND_INPUT input_file=${RAYMOND_INPUT_FILE:-unset}" > "$OUT/end"', 'echo "<result>end</result>"'),
    }, 'fork');
    // A nested raymond inherits its parent's variables: none of them may pass for a value of ours.
    const r = await box.run([wf, '--json', '--workflow-id', 'big2'], { OUT: out, RAYMOND_INPUT_FILE: '/etc/passwd', small_FILE: '/etc/passwd' });
    assert.equal(r.code, 0, r.stderr);
    writeFileSync(join(out, 'expected'), readFileSync(join(out, 'expected'), 'utf8').replace(/\n$/, ''));
    assert.equal(sha(join(out, 'blob')), sha(join(out, 'expected')));
    assert.equal(readFileSync(join(out, 'worker'), 'utf8'), 'small=tiny small_FILE=unset input_file=unset\n');
    assert.equal(readFileSync(join(out, 'end'), 'utf8'), 'input=short input_file=unset\n');
  });

  it('a run that stopped at a step holding a large input resumes and completes with it', async () => {
    const out = join(box.dir, 'out3');
    const wf = box.write({
      'START.sh': sh('mkdir -p "$OUT"', PAYLOAD, 'printf "<goto input=\\"%s\\">NEXT</goto>" "$(cat "$OUT/expected")"'),
      'NEXT.sh': sh('[ -f "$OUT/ok" ] || { echo "not yet" >&2; exit 9; }', save('RAYMOND_INPUT', 'got'), 'echo "<result>done</result>"'),
    }, 'resume');
    const first = await box.run([wf, '--json', '--workflow-id', 'big3'], { OUT: out });
    assert.equal(first.code, 1);
    assert.match(first.stderr, /exited with code 9; stderr: not yet/);
    writeFileSync(join(out, 'ok'), '');
    const second = await box.run(['--resume', 'big3', '--json'], { OUT: out });
    assert.equal(second.code, 0, second.stderr);
    writeFileSync(join(out, 'expected'), readFileSync(join(out, 'expected'), 'utf8').replace(/\n$/, ''));
    assert.equal(sha(join(out, 'got')), sha(join(out, 'expected')));
  });
});
