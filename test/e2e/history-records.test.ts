import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunRecord, StepRecord } from '../../src/history/history-types.js';
import { Sandbox, sh, summary } from '../helpers/cli.js';
import { QueueWorkers, TEST_SECRET } from '../helpers/queue-workers.js';
import { NO_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';
import { api, startServe, until } from '../helpers/serve.js';

const box = new Sandbox();
let redis: RedisServer | undefined;
let workers: QueueWorkers | undefined;
// main forks two workers of W.sh, then ends in DONE.sh: five steps, each a script.
const wf = box.write(
  {
    'START.sh': sh(
      'echo "<fork next=\\"DONE.sh\\" item=\\"1\\">W.sh</fork>"',
      'echo "<fork next=\\"DONE.sh\\" item=\\"2\\">W.sh</fork>"',
    ),
    'W.sh': sh('echo "<result>w$item</result>"'),
    'DONE.sh': sh('echo "<result>done</result>"'),
  },
  'roots/hist',
);
const historyDir = join(box.dir, '.raymond', 'history');

before(async () => {
  redis = await startRedis();
  if (redis) workers = new QueueWorkers(redis.url, box.dir);
});
after(async () => {
  await workers?.stopAll();
  await redis?.stop();
  box.remove();
});

function records<T extends { run: string }>(file: 'steps' | 'runs', run: string): T[] {
  const keys = readdirSync(historyDir);
  assert.equal(keys.length, 1, `one workflow in the history: ${keys.join(', ')}`);
  const key = keys[0]!;
  assert.match(key, /^hist-[0-9a-f]{8}$/);
  return readFileSync(join(historyDir, key, `${file}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T)
    .filter((r) => r.run === run);
}

/** The five steps of one run of `hist`, as the history holds them, in a stable order. */
function checkRecords(run: string, source: RunRecord['source']): void {
  const steps = records<StepRecord>('steps', run);
  assert.deepEqual(
    steps.map((s) => [s.agent, s.state, s.outcome, s.backend, s.costUsd, s.turns]).sort(),
    [
      ['main', 'DONE.sh', 'result', 'script', 0, 0],
      ['main', 'START.sh', 'fork', 'script', 0, 0],
      ['main_w1', 'W.sh', 'result', 'script', 0, 0],
      ['main_w2', 'W.sh', 'result', 'script', 0, 0],
    ],
    run,
  );
  assert.equal(steps.find((s) => s.state === 'START.sh')!.width, 2);
  assert.ok(steps.every((s) => s.wallMs >= 0 && s.at > 0 && !s.rebuilt));
  const runs = records<RunRecord>('runs', run);
  assert.equal(runs.length, 1, run);
  assert.deepEqual(
    [runs[0]!.source, runs[0]!.status, runs[0]!.steps, runs[0]!.agents, runs[0]!.workflow],
    [source, 'completed', 4, 3, 'hist'],
  );
  assert.equal(runs[0]!.path, wf);
  assert.deepEqual(runs[0]!.workers, { 'W.sh': { count: 2, costUsd: 0 } });
}

describe('run history: records of local, queued and served runs', () => {
  it('a local run writes its steps and its run record', async () => {
    const r = await box.run([wf, '--json', '--workflow-id', 'loc']);
    assert.equal(r.code, 0, r.stderr);
    checkRecords('loc', 'local');
  });

  it('a --queue run (steps on a raymond worker through Redis) is recorded by the coordinator', async (t) => {
    if (!redis || !workers) return t.skip(NO_REDIS);
    await workers.start('hist');
    const r = await box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'que'], {
      RAYMOND_QUEUE_SECRET: TEST_SECRET,
    });
    assert.equal(r.code, 0, r.stderr);
    checkRecords('que', 'queued');
  });

  it('a run started over HTTP on raymond serve is recorded in the served project', async () => {
    const server = await startServe(['--root', join(box.dir, 'roots')], box.dir);
    try {
      const start = await api(`${server.url}/runs`, 'POST', { workflow_id: 'hist' });
      assert.equal(start.status, 201, JSON.stringify(start.body));
      const id = start.body.run_id as string;
      await until(async () => {
        const r = await api(`${server.url}/runs/${id}`);
        return r.body.status === 'completed';
      }, `run ${id} completed`);
      await until(async () => records('runs', id).length > 0, 'its run record');
      checkRecords(id, 'served');
    } finally {
      await server.stop();
    }
  });

  it('--no-history writes nothing; --status shows the cost by state, --status --json has cost_by_state', async () => {
    // A project of its own: nothing there may make a history, not even a rebuild at the run's start.
    const quiet = new Sandbox();
    try {
      const own = quiet.write({ 'START.sh': sh('echo "<result>ok</result>"') }, 'quiet');
      const r = await quiet.run([own, '--json', '--workflow-id', 'quiet', '--no-history']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'ok');
      assert.ok(!existsSync(join(quiet.dir, '.raymond', 'history')));
    } finally {
      quiet.remove();
    }

    const text = await box.run(['--status', 'loc']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^cost by state:\n {2}state +steps +turns +cost +share +time\n/m);
    assert.match(text.stdout, /^ {2}W\.sh +2 +0 +\$0\.00 +0% +\d/m);
    const json = JSON.parse((await box.run(['--status', 'loc', '--json'])).stdout) as {
      cost_by_state: Array<{ name: string; steps: number; costUsd: number }>;
    };
    assert.deepEqual(json.cost_by_state.map((r) => [r.name, r.steps, r.costUsd]).sort(), [
      ['DONE.sh', 1, 0],
      ['START.sh', 1, 0],
      ['W.sh', 2, 0],
    ]);
  });

  it('rebuilt after rm -rf .raymond/history: raymond stats gives the same runs, steps and costs', async () => {
    const stats = async () => {
      const r = await box.run(['stats', wf, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout) as {
        runs: number;
        totalUsd: number;
        states: Array<{
          state: string;
          runs: number;
          steps: number;
          costP50Usd: number;
          costP90Usd: number;
          failureRate: number;
        }>;
      };
      return {
        runs: s.runs,
        totalUsd: s.totalUsd,
        states: s.states
          .map((x) => [x.state, x.runs, x.steps, x.costP50Usd, x.costP90Usd, x.failureRate])
          .sort(),
      };
    };
    const before = await stats();
    assert.equal(before.runs, redis ? 3 : 2);
    rmSync(historyDir, { recursive: true });
    const after = await stats();
    assert.deepEqual(after, before);
    assert.ok(existsSync(historyDir), 'the rebuilt history is kept');
    const ids = readdirSync(join(box.dir, '.raymond', 'serve-state')).filter((n) =>
      n.endsWith('.json'),
    );
    assert.equal(ids.length, 1, 'one served run');
    const sources = [
      ['loc', 'local'],
      ['que', 'queued'],
      [ids[0]!.replace(/\.json$/, ''), 'served'],
    ].filter(([id]) => redis || id !== 'que');
    for (const [id, source] of sources) {
      const [run] = records<RunRecord>('runs', id!);
      assert.deepEqual([run?.source, run?.rebuilt, run?.steps], [source, true, 4], id);
      assert.ok(records<StepRecord>('steps', id!).every((s) => s.rebuilt));
    }
  });

  it('a run paused on an ask and resumed is one run in the history: a record per part, the last covering the whole run', async () => {
    const own = new Sandbox();
    try {
      // main forks a worker, then asks; the resume answers and ends the run in B.sh.
      const asks = own.write(
        {
          'START.sh': sh('echo \'<fork next="ASK.sh" item="1">W.sh</fork>\''),
          'W.sh': sh('echo "<result>w</result>"'),
          'ASK.sh': sh('echo \'<ask next="B.sh">go on?</ask>\''),
          'B.sh': sh('echo "<result>got $RAYMOND_INPUT</result>"'),
        },
        'asks',
      );
      const paused = await own.run([asks, '--json', '--workflow-id', 'p1', '--on-ask=pause']);
      assert.equal(summary(paused).status, 'asking', paused.stderr);
      const done = await own.run(['--resume', 'p1', '--input', 'yes', '--json']);
      assert.equal(summary(done).results.main, 'got yes', done.stderr);
      const [key] = readdirSync(join(own.dir, '.raymond', 'history'));
      const parts = readFileSync(join(own.dir, '.raymond', 'history', key!, 'runs.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RunRecord);
      // The resumed part's record counts the steps and the worker of the part before it too.
      assert.deepEqual(
        parts.map((r) => [r.run, r.status, r.steps, r.agents, r.workers]),
        [
          ['p1', 'asking', 3, 2, { 'W.sh': { count: 1, costUsd: 0 } }],
          ['p1', 'completed', 4, 2, { 'W.sh': { count: 1, costUsd: 0 } }],
        ],
      );
      const stats = JSON.parse((await own.run(['stats', asks, '--json'])).stdout) as {
        runs: number;
        states: Array<{ state: string; runs: number; steps: number }>;
      };
      assert.equal(stats.runs, 1);
      assert.deepEqual(stats.states.map((x) => [x.state, x.runs, x.steps]).sort(), [
        ['ASK.sh', 1, 1],
        ['B.sh', 1, 1],
        ['START.sh', 1, 1],
        ['W.sh', 1, 1],
      ]);
      const run = JSON.parse((await own.run(['stats', 'p1', '--json'])).stdout) as {
        steps: number;
        status: string;
      };
      assert.deepEqual([run.steps, run.status], [4, 'completed']);
    } finally {
      own.remove();
    }
  });

  it('raymond history --prune --keep 1 leaves one run; bad input is one line, exit 64', async () => {
    const pruned = await box.run(['history', '--prune', '--keep', '1', '--json']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.equal((JSON.parse(pruned.stdout) as { runsKept: number }).runsKept, 1);
    const listed = JSON.parse((await box.run(['history', '--json'])).stdout) as {
      workflows: Array<{ runs: number }>;
    };
    assert.deepEqual(
      listed.workflows.map((w) => w.runs),
      [1],
    );
    const bad = await box.run(['stats', 'nope']);
    assert.equal(bad.code, 64);
    assert.equal(bad.stdout, '');
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(bad.stderr, /^raymond: no workflow or run "nope" in the history of .+/);
    const badKeep = await box.run(['history', '--keep', '1']);
    assert.equal(badKeep.code, 64);
    assert.equal(badKeep.stderr, 'raymond: --keep and --older-than go with --prune\n');
  });
});
