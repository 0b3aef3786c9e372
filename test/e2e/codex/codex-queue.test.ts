import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sh, summary } from '../../helpers/cli.js';
import { CodexSandbox } from '../../helpers/codex-sandbox.js';
import { queueWorld, TEST_SECRET, type WorkerProcess } from '../../helpers/queue-workers.js';

const box = new CodexSandbox();
const codexHomeOf = (home: string) => join(home, 'codex-home');

// Each worker is a machine with a CODEX_HOME of its own (the same provider).
const world = queueWorld(box, (home) => box.env({ HOME: home, CODEX_HOME: codexHomeOf(home) }));

/** Whether a worker's CODEX_HOME holds the thread's rollout. */
function holds(w: WorkerProcess, thread: string): boolean {
  const walk = (dir: string): boolean =>
    existsSync(dir) &&
    readdirSync(dir, { withFileTypes: true }).some((d) =>
      d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith(`-${thread}.jsonl`),
    );
  return walk(join(codexHomeOf(w.home), 'sessions'));
}

/** Starts two workers, each with the sandbox's codex config in its own CODEX_HOME. */
async function twoWorkers(prefix: string): Promise<WorkerProcess[]> {
  // An earlier test's workers would take the jobs: each test has its own two machines.
  await world.workers.stopAll();
  const ws: WorkerProcess[] = [];
  for (const n of ['a', 'b']) {
    const w = await world.workers.start(`${prefix}-${n}`);
    box.writeConfig(codexHomeOf(w.home));
    ws.push(w);
  }
  return ws;
}

/** Waits until a worker holds the agent's current thread; gives the holder and the thread. */
async function holderOf(ws: WorkerProcess[], run: string, agent = 0) {
  for (let i = 0; i < 400; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const session = existsSync(join(box.dir, `.raymond/state/${run}.json`))
      ? (box.state(run).agents[agent]?.session ?? null)
      : null;
    const holder = session ? ws.find((w) => holds(w, session)) : undefined;
    if (holder) return { holder, session: session! };
  }
  return assert.fail("no worker holds the agent's thread");
}

describe('backend: codex through --queue (real codex, scripted Responses API)', () => {
  it('a codex <goto> chain whose thread holder dies between turns goes on elsewhere with the conversation', async (t) => {
    if (!world.redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const go = join(box.dir, 'cdx-go');
    const ws = await twoWorkers('cdx');
    const s = box.server;
    s.on('CDXQ-ONE', { text: 'cdxq-marker-5 <goto>WAIT.sh</goto>' });
    s.on('CDXQ-TWO', (r) => ({
      text: `<result>${r.transcript.includes('cdxq-marker-5') ? 'remembered' : 'forgot'}</result>`,
    }));
    const wf = box.write(
      {
        'workflow.yaml': 'backend: codex\n',
        'START.md': 'CDXQ-ONE',
        'WAIT.sh': sh(`while [ ! -e ${go} ]; do sleep 0.1; done`, 'echo "<goto>TWO.md</goto>"'),
        'TWO.md': 'CDXQ-TWO',
      },
      'cdxq',
    );
    const run = box.run([wf, '--queue', world.redis.url, '--json', '--workflow-id', 'cdxq'], {
      RAYMOND_QUEUE_SECRET: TEST_SECRET,
    });
    const { holder, session } = await holderOf(ws, 'cdxq');
    await holder.kill();
    writeFileSync(go, '');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'remembered');
    assert.ok(
      holds(
        ws.find((w) => w !== holder)!,
        session,
      ),
      'the next turn ran on the other worker, in the same thread',
    );
  });

  it("a callee's forked thread goes on elsewhere with its caller's turns too (the fork's parent travels with it)", async (t) => {
    if (!world.redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const go = join(box.dir, 'cdx-go-call');
    const ws = await twoWorkers('cdxc');
    const s = box.server;
    s.on('CDXC-CALLER', { text: 'cdxc-caller-3 <call return="DONE">CHILD</call>' });
    s.on('CDXC-CHILD', { text: 'cdxc-child-4 <goto>WAIT.sh</goto>' });
    s.on('CDXC-AGAIN', (r) => ({
      text: `<result>${r.transcript.includes('cdxc-caller-3') && r.transcript.includes('cdxc-child-4') ? 'whole' : 'partial'}</result>`,
    }));
    s.on('CDXC-DONE', { text: '<result>{{result}}</result>' });
    const wf = box.write(
      {
        'workflow.yaml': 'backend: codex\n',
        'START.md': 'CDXC-CALLER',
        'CHILD.md': 'CDXC-CHILD',
        'WAIT.sh': sh(`while [ ! -e ${go} ]; do sleep 0.1; done`, 'echo "<goto>AGAIN.md</goto>"'),
        'AGAIN.md': 'CDXC-AGAIN',
        'DONE.md': 'CDXC-DONE {{result}}',
      },
      'cdxc',
    );
    const run = box.run([wf, '--queue', world.redis.url, '--json', '--workflow-id', 'cdxc'], {
      RAYMOND_QUEUE_SECRET: TEST_SECRET,
    });
    // Once the callee's fork is on a worker, both its turns and its caller's are there: kill that worker.
    let found: { holder: WorkerProcess; session: string } | undefined;
    for (let i = 0; i < 400 && !found; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const state = existsSync(join(box.dir, '.raymond/state/cdxc.json'))
        ? box.state('cdxc')
        : undefined;
      const agent = state?.agents[0];
      const top = agent?.stack.length ? agent.session : null;
      const holder = top ? ws.find((w) => holds(w, top)) : undefined;
      if (holder && top) found = { holder, session: top };
    }
    assert.ok(found, "a worker holds the callee's thread");
    await found.holder.kill();
    writeFileSync(go, '');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requestsFor('CDXC-AGAIN').length, 1);
    assert.match(
      s.requestsFor('CDXC-AGAIN')[0]!.transcript,
      /cdxc-caller-3[\s\S]*cdxc-child-4/,
      "the callee's next turn carried its caller's turn and its own",
    );
  });
});
