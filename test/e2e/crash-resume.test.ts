import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import type { WorkflowState } from '../../machines/types.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { CLI, ROOT, Sandbox, readRunState, sh } from '../helpers/cli.js';

const FAKE = join(ROOT, 'test/fixtures/fake-claude/claude');
const WORKERS = 6;
const box = new Sandbox();
after(() => box.remove());

describe('crash safety', () => {
  it('a fan-out run killed with SIGKILL at random moments and resumed each time ends with every result exactly once', async () => {
    // A fixed seed, so CI replays the same kills; CRASH_SEED=N tries others.
    const seed = Number(process.env.CRASH_SEED ?? 20261123);
    const rand = seededRandom(seed);
    const forks = Array.from(
      { length: WORKERS },
      (_, i) => `<fork next=\\"COLLECT\\" i=\\"${i + 1}\\">W</fork>`,
    ).join('');
    const wf = box.write(
      {
        'START.sh': sh(`echo "${forks}"`),
        'W.sh': sh('sleep 0.$((RANDOM % 3 + 1))$((RANDOM % 9))', 'echo "<goto>ASK</goto>"'),
        'ASK.md': 'Think about item {{i}}.',
        'FIN.sh': sh('echo "<result>$RAYMOND_AGENT_ID done</result>"'),
        'COLLECT.sh': sh('echo "<call return=\\"END\\">ASK</call>"'),
        'END.sh': sh('echo "<result>all done after $RAYMOND_INPUT</result>"'),
      },
      'crash',
    );
    const fake = join(box.dir, 'fake');
    mkdirSync(fake);
    const env = { ...process.env, FAKE_CLAUDE_DIR: fake, FAKE_CLAUDE_REPLY: '<goto>FIN</goto>' };
    const stateFile = join(box.dir, '.raymond/state/crash.json');
    const seen: Record<string, string> = {};
    let kills = 0;
    let finished = false;
    for (let attempt = 0; attempt < 40 && !finished; attempt++) {
      // A kill that came after the last write found the run already completed: there is nothing to resume.
      if (existsSync(stateFile) && readRunState(stateFile).status === 'completed') {
        finished = true;
        break;
      }
      const args = existsSync(stateFile) ? ['--resume', 'crash'] : [wf, '--workflow-id', 'crash'];
      const child = execa(
        process.execPath,
        [CLI, ...args, '--claude-bin', FAKE, '--max-parallel', '3', '--quiet'],
        { cwd: box.dir, env, reject: false, stdin: 'ignore' },
      );
      // Kill soon at first, later less eagerly, so the run always gets to the end.
      const delay = attempt < 12 ? 30 + Math.floor(rand() * 600) : 60_000;
      const timer = new AbortController();
      const done = await Promise.race([
        child.then(() => true),
        sleep(delay, false, { signal: timer.signal }).catch(() => false),
      ]);
      timer.abort();
      if (!done) {
        child.kill('SIGKILL');
        await child;
        kills++;
      } else {
        const result = await child;
        assert.equal(result.exitCode, 0, `seed ${seed}: a resume failed: ${String(result.stderr)}`);
        finished = true;
      }
      if (!existsSync(stateFile)) continue;
      // The snapshot must be complete JSON at every instant; the journal may end in a torn line.
      const state = readRunState(stateFile);
      assert.equal(state.version, 1, `seed ${seed}`);
      for (const [agent, payload] of Object.entries(seen))
        assert.equal(
          state.results[agent],
          payload,
          `seed ${seed}: a recorded result never changes or disappears`,
        );
      Object.assign(seen, state.results);
      for (const a of state.agents) {
        if (a.status === 'terminated')
          assert.equal(state.results[a.id], a.result, `seed ${seed}: ${a.id}`);
      }
    }
    assert.ok(finished, `seed ${seed}: the run finished`);
    assert.ok(kills >= 5, `seed ${seed}: killed ${kills} times`);
    const final = JSON.parse(readFileSync(stateFile, 'utf8')) as WorkflowState;
    assert.equal(
      existsSync(stateFile.replace(/\.json$/, '.journal')),
      false,
      'a finished run is one compact file',
    );
    assert.equal(final.status, 'completed');
    const expected: Record<string, string> = { main: 'all done after main done' };
    for (let i = 1; i <= WORKERS; i++) expected[`main_w${i}`] = `main_w${i} done`;
    assert.deepEqual(final.results, expected, `seed ${seed}`);
    assert.deepEqual(
      final.fork_counters,
      { main: WORKERS },
      `seed ${seed}: no worker was forked twice`,
    );
    assert.equal(final.agents.length, WORKERS + 1);
  });

  it('a run killed while its state file is being compacted resumes with every result exactly once', async () => {
    // Inputs of 100 KB make every journal line big, so the journal is folded into a new snapshot every ten steps or so.
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<fork next=\\"END\\" i=\\"1\\">W</fork><fork next=\\"END\\" i=\\"2\\">W</fork><fork next=\\"END\\" i=\\"3\\">W</fork>"',
        ),
        'W.sh': sh(
          'n=${RAYMOND_INPUT%%:*}; n=${n:-0}',
          'if (( n < 30 )); then printf \'<goto input="%s:%s">W</goto>\' $((n + 1)) "$(head -c 100000 /dev/zero | tr \'\\0\' a)"; else echo "<result>w$i counted $n</result>"; fi',
        ),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'compact',
    );
    const stateDir = join(box.dir, '.raymond/state');
    const stateFile = join(stateDir, 'compact.json');
    let duringCompaction = 0;
    let finished = false;
    for (let attempt = 0; attempt < 30 && !finished; attempt++) {
      const args = existsSync(stateFile)
        ? ['--resume', 'compact']
        : [wf, '--workflow-id', 'compact'];
      const child = execa(
        process.execPath,
        [CLI, ...args, '--max-parallel', '2', '--quiet', '--no-debug'],
        { cwd: box.dir, reject: false, stdin: 'ignore' },
      );
      let exited = false;
      void child.then(() => (exited = true));
      const temps = () =>
        existsSync(stateDir)
          ? readdirSync(stateDir).filter((f) => /^compact\.json\.\S+$/.test(f))
          : [];
      const leftBefore = new Set(temps());
      // Kill the moment a new snapshot is being written over a journal (its temporary file exists
      // beside the journal it folds in), three times over.
      const journal = join(stateDir, 'compact.journal');
      while (!exited && duringCompaction < 3) {
        if (existsSync(journal) && temps().some((f) => !leftBefore.has(f))) {
          child.kill('SIGKILL');
          duringCompaction++;
          break;
        }
        await sleep(1);
      }
      await child;
      if (child.exitCode === 0) finished = true;
      if (!existsSync(stateFile)) continue;
      const state = readRunState(stateFile);
      for (const a of state.agents)
        if (a.status === 'terminated') assert.equal(state.results[a.id], a.result, a.id);
    }
    assert.ok(finished, 'the run finished');
    assert.ok(duringCompaction >= 3, `killed ${duringCompaction} times during a compaction`);
    const final = JSON.parse(readFileSync(stateFile, 'utf8')) as WorkflowState;
    assert.equal(final.status, 'completed');
    assert.deepEqual(final.results, {
      main: 'end',
      main_w1: 'w1 counted 30',
      main_w2: 'w2 counted 30',
      main_w3: 'w3 counted 30',
    });
    assert.deepEqual(final.fork_counters, { main: 3 });
  });
});
