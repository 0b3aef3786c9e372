import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const TEN_W = 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "<fork next=\\"DONE\\">W</fork>"; done';
const WORKERS = {
  'W1.sh': sh('echo "<result>w1</result>"'),
  'W.sh': sh('echo "<result>w $RAYMOND_AGENT_ID</result>"'),
  'DONE.sh': sh('echo "<result>done</result>"'),
};

/** The results of the W workers, which must each have named themselves. */
function wResults(results: Record<string, string>): string[] {
  return Object.entries(results)
    .filter(([, v]) => v.startsWith('w '))
    .map(([id, v]) => (assert.equal(v, `w ${id}`), id));
}

describe('forked worker ids', () => {
  it('a W1 worker and ten W workers forked later all keep their own id and result', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"STEP2\\">W1</fork>"'),
        'STEP2.sh': sh(TEN_W),
        ...WORKERS,
      },
      'later',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'later']);
    assert.equal(r.code, 0, r.stderr);
    const { results } = summary(r);
    assert.equal(results.main_w1, 'w1');
    assert.equal(Object.keys(results).length, 12, JSON.stringify(results));
    assert.equal(wResults(results).length, 10);
  });

  it('a W1 worker and ten W workers forked in one step all run', async () => {
    const wf = box.write(
      { 'START.sh': sh('echo "<fork next=\\"DONE\\">W1</fork>"', TEN_W), ...WORKERS },
      'once',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'once']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /internal error|already exists/);
    const { results } = summary(r);
    assert.equal(results.main_w1, 'w1');
    assert.equal(Object.keys(results).length, 12, JSON.stringify(results));
  });

  it('a resumed run keeps the ids an older naming rule gave, and new workers never take them', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"STEP2\\">W1</fork>"'),
        'STEP2.sh': sh('[ -f go ] || exit 3', TEN_W),
        ...WORKERS,
      },
      'legacy',
    );
    assert.equal((await box.run([wf, '--workflow-id', 'legacy'])).code, 1);
    // The older rule (first six letters and digits, then the counter) named the W1 worker main_w11.
    const state = box.state('legacy');
    const w1 = state.agents.find((a) => a.state === 'W1.sh')!;
    const old = w1.id;
    w1.id = 'main_w11';
    state.results = { main_w11: state.results[old]! };
    rmSync(join(box.dir, '.raymond/state/legacy.journal'), { force: true });
    writeFileSync(join(box.dir, '.raymond/state/legacy.json'), JSON.stringify(state));
    writeFileSync(join(box.dir, 'go'), '');
    const r = await box.run(['--resume', 'legacy', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { results } = summary(r);
    assert.equal(results.main_w11, 'w1', 'the old id and its result are kept');
    assert.equal(Object.keys(results).length, 12, JSON.stringify(results));
    assert.equal(wResults(results).length, 10);
    const ids = box.state('legacy').agents.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('a chain of forks 60 deep completes: ids stay short enough to be folder names, each agent keeps its own folder', async () => {
    const wf = box.write(
      {
        // Each WORKER forks the next one (8 characters of id per level unbounded: 60 levels would be 480).
        'START.sh': sh('echo "<fork next=\\"DONE\\" level=\\"1\\">WORKER</fork>"'),
        'WORKER.sh': sh(
          '[ -d "$RAYMOND_TASK_FOLDER" ] || exit 7',
          'if [ "$level" -lt 60 ]; then echo "<fork next=\\"DONE\\" level=\\"$((level + 1))\\">WORKER</fork>"; else echo "<result>bottom $RAYMOND_AGENT_ID</result>"; fi',
        ),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'chain',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'chain', '--quiet']);
    assert.equal(r.code, 0, r.stderr);
    const { results } = summary(r);
    const ids = Object.keys(results);
    assert.equal(ids.length, 61, 'main and 60 workers');
    assert.ok(
      ids.every((id) => id.length <= 100),
      ids.filter((id) => id.length > 100).join(' '),
    );
    const bottom = Object.values(results).find((v) => v.startsWith('bottom '))!;
    assert.match(
      bottom,
      /^bottom main-[0-9a-f]{16}(_worker1)+$/,
      'the deepest id names a shortened parent',
    );
    const state = box.state('chain');
    assert.equal(
      new Set(state.agents.map((a) => a.task_folder)).size,
      61,
      'a folder of its own each',
    );
  });
});
