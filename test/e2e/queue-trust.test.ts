import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { execa } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';
import { signJob } from '../../src/queue/job-signing.js';
import { QueueWorkers, TEST_SECRET } from '../helpers/queue-workers.js';
import { NO_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

/**
 * What someone with access to the queue's Redis but not its secret can do:
 * answer jobs, put copies of jobs back, start workers with another secret.
 * Each case here is an attack or a mistake that used to get through.
 */
const box = new Sandbox();
let redis: RedisServer | undefined;
let workers: QueueWorkers;
let conn: Redis;
const env = () => ({ RAYMOND_QUEUE_SECRET: TEST_SECRET });
const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  redis = await startRedis();
  if (!redis) return;
  workers = new QueueWorkers(redis.url, box.dir);
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
});
beforeEach(async () => {
  await workers?.stopAll();
  // Each case starts with no secret published: one case's run does not speak for the next case's workers.
  await conn?.del('raymond:secret-check');
});
after(async () => {
  await workers?.stopAll();
  conn?.disconnect();
  await redis?.stop();
  box.remove();
});

/** Waits until a job has finished one way or the other, and returns how. */
async function settled(queue: Queue, id: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const state = await queue.getJobState(id);
    if (state === 'completed' || state === 'failed') return state;
    await sleep(50);
  }
  return 'still waiting';
}

describe('--queue: what Redis access without the secret cannot do', () => {
  it('a rogue worker without the secret answers a step with a forged result and a path-escaping session id: refused, nothing taken, nothing written', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const rogueConn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const rogue = new Worker(
      'steps',
      async () => ({
        worker: 'rogue',
        execution: { output: '<result>FORGED</result>', session: null, costUsd: 0 },
        transcript: { id: '../../../escaped-here', text: 'ESCAPED' },
      }),
      { connection: rogueConn, prefix: 'raymond' },
    );
    try {
      const wf = box.write({ 'START.sh': sh('echo "<result>honest</result>"') }, 'rogue');
      const r = await box.run(
        [wf, '--queue', redis.url, '--json', '--workflow-id', 'rogue'],
        env(),
      );
      assert.notEqual(r.code, 0, r.stdout);
      assert.notEqual(summary(r).results.main, 'FORGED');
      assert.match(
        r.stderr,
        /the step's result is not signed with the queue's secret for this job .*: refused/,
      );
      assert.deepEqual(
        Object.keys(box.state('rogue').results),
        [],
        'the state file took no result',
      );
      assert.equal(
        existsSync(join(box.dir, 'escaped-here.jsonl')),
        false,
        'no file outside the transcripts folder',
      );
    } finally {
      await rogue.close();
      rogueConn.disconnect();
    }
  });

  it('a finished job put back in the queue under its id (a replay) runs nothing, even with its claim deleted', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const w = await workers.start('replay');
    const ran = join(box.dir, 'replay-ran.log');
    const wf = box.write(
      { 'START.sh': sh(`echo deploy >> ${ran}`, 'echo "<result>deployed</result>"') },
      'replay',
    );
    const r = await box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'replay'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(ran), ['deploy']);
    const queue = new Queue('steps', { connection: conn, prefix: 'raymond' });
    try {
      const [job] = (await queue.getJobs(['completed'])).filter((j) => j.id!.startsWith('replay.'));
      assert.ok(job, 'the run left its job in Redis');
      const id = job.id!;
      const data = await conn.hget(`raymond:steps:${id}`, 'data');
      const replay = async () => {
        await (await queue.getJob(id))!.remove();
        await queue.add('step', JSON.parse(data!), { jobId: id });
        const state = await settled(queue, id);
        return `${state}: ${(await queue.getJob(id))?.failedReason ?? ''}`;
      };
      // A copy of a finished job hands back the result its run left (its lock may have lapsed while it ran).
      assert.match(await replay(), /^completed: /);
      assert.deepEqual(lines(ran), ['deploy'], 'a copy of the job ran nothing');
      const keys = await conn.keys('raymond:claim:*');
      assert.equal(keys.length, 2, keys.join(' '));
      const claimKey = keys.find((k) => !k.endsWith(':result'))!;
      const claim = (await conn.get(claimKey))!;
      // Once the result is no longer kept, a copy is refused; the worker that ran it remembers it, even once its claim is gone.
      await conn.del(`${claimKey}:result`, claimKey);
      assert.match(await replay(), /^failed: refused: it ran already/);
      assert.match(
        w.log(),
        /refused job replay\.\S+: it ran already \(a copy put back in the queue\); nothing of it was run/,
      );
      // Another worker finds its claim.
      await conn.set(claimKey, claim);
      await w.kill();
      const other = await workers.start('replay-other');
      assert.match(await replay(), /^failed: refused: it ran already/);
      assert.match(other.log(), /refused job replay\.\S+: it ran already/);
      assert.deepEqual(lines(ran), ['deploy'], 'the script ran once');
    } finally {
      await queue.close();
    }
  });

  it('a rightly signed job of another shape (a run of the version before, with its claude field) is refused in one line naming the field, and runs nothing', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const w = await workers.start('shape');
    const queue = new Queue('steps', { connection: conn, prefix: 'raymond' });
    try {
      const job = {
        v: 2,
        claude: { skipPermissions: false, warm: true },
        kind: 'markdown',
        run: 'other',
        id: 'other.1',
        nonce: 'n',
        expires: Date.now() + 60_000,
      };
      await queue.add('step', signJob(TEST_SECRET, job), { jobId: 'other.1' });
      assert.equal(await settled(queue, 'other.1'), 'failed');
      const reason = (await queue.getJob('other.1'))?.failedReason ?? '';
      assert.equal(
        reason,
        'refused: it is not a step job this worker knows (a run of another Raymond version?): v is 2; it must be 4; nothing of it was run',
      );
      assert.match(
        w.log(),
        /refused job other\.1: it is not a step job this worker knows .*: v is 2; it must be 4; nothing of it was run/,
      );
    } finally {
      await queue.close();
    }
  });

  it('a worker started with another secret stops, saying so, and the runs go on on the others', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    // Started before any run said which secret it uses: it learns it from the run.
    const wrong = execa(
      process.execPath,
      [
        CLI,
        'worker',
        '--queue',
        redis.url,
        '--name',
        'typo',
        '--workdir',
        box.dir,
        '--concurrency',
        '8',
      ],
      {
        env: {
          RAYMOND_QUEUE_SECRET: 'a-typo-in-the-secret-0123',
          RAYMOND_QUEUE_STALL_MS: '1500',
          HOME: box.dir,
        },
        reject: false,
        all: true,
      },
    );
    let out = '';
    wrong.all.on('data', (d: Buffer) => (out += d.toString()));
    while (!out.includes('is taking steps from')) {
      assert.equal(wrong.exitCode, null, out);
      await sleep(50);
    }
    await workers.start('right');
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in $(seq 1 12); do echo "<fork next=\\"DONE.sh\\" item=\\"$i\\">WORK.sh</fork>"; done',
          'echo "<goto>DONE.sh</goto>"',
        ),
        'WORK.sh': sh('echo "<result>item $item</result>"'),
        'DONE.sh': sh('echo "<result>all done</result>"'),
      },
      'typo',
    );
    const r = await box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'typo'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'all done');
    assert.equal(Object.keys(box.state('typo').results).length, 13);
    const ended = await wrong;
    assert.equal(ended.exitCode, 64, out);
    assert.match(
      out,
      /^raymond: the runs queued at redis:\/\/127\.0\.0\.1:\d+ are signed with another secret than this worker's .*: stopping without taking a job/m,
    );
    assert.doesNotMatch(out, /refused job/);
    // Started while a run's secret is published: it stops at once, before taking anything.
    const late = await execa(
      process.execPath,
      [CLI, 'worker', '--queue', redis.url, '--name', 'late', '--workdir', box.dir],
      {
        env: { RAYMOND_QUEUE_SECRET: 'a-typo-in-the-secret-0123', HOME: box.dir },
        reject: false,
        timeout: 30_000,
      },
    );
    assert.equal(late.exitCode, 64);
    assert.deepEqual(
      String(late.stderr)
        .trim()
        .split('\n')
        .filter((l) => !l.includes('is taking steps')).length,
      1,
      String(late.stderr),
    );
    assert.match(String(late.stderr), /signed with another secret than this worker's/);
  });

  it("a run with another secret than the live workers' is one line, and they keep working", async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const w = await workers.start('keep');
    const wf = box.write({ 'START.sh': sh('echo "<result>fine</result>"') }, 'coordtypo');
    const bad = await box.run([wf, '--queue', redis.url, '--json'], {
      RAYMOND_QUEUE_SECRET: 'a-typo-in-the-secret-0123',
    });
    assert.notEqual(bad.code, 0);
    assert.match(
      bad.stderr,
      /none of the \d+ live workers at redis:\/\/127\.0\.0\.1:\d+ has this run's queue secret/,
    );
    const good = await box.run([wf, '--queue', redis.url, '--json'], env());
    assert.equal(good.code, 0, good.stderr);
    assert.equal(summary(good).results.main, 'fine');
    await w.kill();
  });
});

describe('--queue: one-shot commands, resumes and files', () => {
  it('raymond workers on a Redis nobody answers ends with one line naming the URL, exit 75 (a failure that may pass)', async () => {
    const r = await box.run(['workers', '--queue', 'redis://127.0.0.1:1']);
    assert.equal(r.code, 75);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^raymond: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*\n$/,
    );
  });

  it("--resume ID --queue-secret-file F without --queue takes the run's own queue and that secret", async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const secret = join(box.dir, 'resume-secret.txt');
    writeFileSync(secret, `${TEST_SECRET}\n`);
    const w = await workers.start('resume');
    const started = join(box.dir, 'resume-started');
    const wf = box.write(
      { 'START.sh': sh(`touch ${started}`, 'sleep 2', 'echo "<result>resumed fine</result>"') },
      'resumesecret',
    );
    const proc = execa(
      process.execPath,
      [
        CLI,
        wf,
        '--queue',
        redis.url,
        '--queue-secret-file',
        secret,
        '--workflow-id',
        'resumesecret',
      ],
      { cwd: box.dir, env: { RAYMOND_QUEUE_SECRET: '' }, reject: false },
    );
    while (!existsSync(started)) await sleep(50);
    proc.kill('SIGKILL');
    await proc;
    const r = await box.run(['--resume', 'resumesecret', '--queue-secret-file', secret, '--json'], {
      RAYMOND_QUEUE_SECRET: '',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'resumed fine');
    await w.kill();
  });

  it('a symlinked state file inside the workflow folder runs on the workers; one that leaves the folder is one line', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const w = await workers.start('links');
    const wf = box.write(
      {
        'real-start.sh': sh('echo "<goto>NEXT.sh</goto>"'),
        'lib/next.sh': sh('echo "<result>through links</result>"'),
      },
      'links',
    );
    symlinkSync('real-start.sh', join(wf, 'START.sh'));
    symlinkSync(join(wf, 'lib', 'next.sh'), join(wf, 'NEXT.sh'));
    const r = await box.run([wf, '--queue', redis.url, '--json'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'through links');

    const shared = box.write({ 'deploy.sh': sh('echo "<result>deployed</result>"') }, 'shared');
    const out = box.write({ 'readme.txt': 'a workflow whose state lives elsewhere' }, 'outside');
    symlinkSync(join(shared, 'deploy.sh'), join(out, 'START.sh'));
    const refused = await box.run([out, '--queue', redis.url, '--json'], env());
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /"START\.sh" is a symbolic link to .*shared\/deploy\.sh, outside the workflow folder: .*--queue refuses it/,
    );
    const lint = await box.run(['lint', out, '--json']);
    assert.match(lint.stdout, /"check":"link-outside-folder"/);
    await w.kill();
  });
});
