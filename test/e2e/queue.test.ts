import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { execa } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';
import { QueueWorkers, TEST_SECRET } from '../helpers/queue-workers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { freePort } from '../helpers/browser.js';
import { signJob } from '../../src/queue/job-signing.js';

const box = new Sandbox();
let redis: RedisServer | undefined;
let workers: QueueWorkers;
const env = () => ({ RAYMOND_QUEUE_SECRET: TEST_SECRET });
const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];

before(async () => {
  redis = await startRedis();
  if (redis) workers = new QueueWorkers(redis.url, box.dir);
});
// Each case has workers of its own: one a failed case left running would take the next case's jobs.
beforeEach(() => workers?.stopAll());
after(async () => {
  await workers?.stopAll();
  await redis?.stop();
  box.remove();
});

describe('--queue: script steps on worker processes through Redis', () => {
  it('50 forked workers spread over three worker processes: each ran some, every result exactly once', async (t) => {
    if (!redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const ran = join(box.dir, 'fan-ran.log');
    const ws = await Promise.all(['a', 'b', 'c'].map((n) => workers.start(`fan-${n}`)));
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in $(seq 1 50); do echo "<fork next=\\"DONE.sh\\" item=\\"$i\\">WORK.sh</fork>"; done',
          'echo "<goto>DONE.sh</goto>"',
        ),
        'WORK.sh': sh(
          'sleep 0.1',
          `echo "$item $(basename "$HOME")" >> ${ran}`,
          'echo "<result>item $item on $(basename "$HOME")</result>"',
        ),
        'DONE.sh': sh('echo "<result>all forked</result>"'),
      },
      'fan',
    );
    const r = await box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'fan'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'all forked');
    const state = box.state('fan');
    const results = Object.entries(state.results).filter(([id]) => id !== 'main');
    assert.equal(results.length, 50);
    const items = lines(ran).map((l) => l.split(' ')[0]);
    assert.deepEqual(
      [...items].sort(),
      Array.from({ length: 50 }, (_, i) => String(i + 1)).sort(),
      'each item ran exactly once',
    );
    for (const w of ws)
      assert.ok(
        lines(ran).some((l) => l.endsWith(`home-${w.name}`)),
        `${w.name} ran some steps`,
      );
    // raymond workers: each alive, with what it did (beats come every second).
    await new Promise((r) => setTimeout(r, 1200));
    const listed = await box.run(['workers', '--queue', redis.url, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const report = JSON.parse(listed.stdout) as {
      workers: Array<{ name: string; alive: boolean; done: number; concurrency: number }>;
      jobs: { completed: number };
    };
    const mine = report.workers.filter((w) => w.name.startsWith('fan-'));
    assert.deepEqual(
      mine.map((w) => [w.name, w.alive, w.concurrency]),
      [
        ['fan-a', true, 4],
        ['fan-b', true, 4],
        ['fan-c', true, 4],
      ],
    );
    assert.equal(
      mine.reduce((n, w) => n + w.done, 0),
      52,
      'START, 50 workers, DONE',
    );
    const text = await box.run(['workers', '--queue', redis.url]);
    assert.match(text.stdout, /^fan-a {2}alive {2}0\/4 busy {2}\d+ done {2}0 failed {2}on /m);
    await Promise.all(ws.map((w) => w.kill()));
  });

  it('a worker without --concurrency takes a step per core at most, not one per 300 MB of memory', async (t) => {
    if (!redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const w = await workers.start('default-n', { concurrency: null });
    const n = Number(/\(concurrency (\d+),/.exec(w.log())?.[1]);
    assert.ok(n >= 1 && n <= Math.max(2, availableParallelism()), w.log());
  });

  it('a worker killed mid-script: another runs the step again, and the run applies it once', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const started = join(box.dir, 'kill-started.log');
    const ws = await Promise.all(['a', 'b'].map((n) => workers.start(`kill-${n}`)));
    const wf = box.write(
      {
        'START.sh': sh(
          `echo "$(basename "$HOME")" >> ${started}`,
          'sleep 3',
          'echo "<result>slept on $(basename "$HOME")</result>"',
        ),
      },
      'killmid',
    );
    const run = box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'killmid'], env());
    while (lines(started).length === 0) await new Promise((r) => setTimeout(r, 50));
    const first = lines(started)[0]!;
    await ws.find((w) => first === `home-${w.name}`)!.kill();
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    const survivor = ws.find((w) => first !== `home-${w.name}`)!;
    assert.equal(summary(r).results.main, `slept on home-${survivor.name}`);
    assert.deepEqual(
      lines(started),
      [first, `home-${survivor.name}`],
      'started twice, once per worker',
    );
    const state = box.state('killmid');
    assert.equal(state.agents[0]!.status, 'terminated');
    await survivor.kill();
  });

  it('the coordinator killed mid-run: --resume takes the results finished meanwhile without running them again', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const started = join(box.dir, 'coord-started.log');
    const w = await workers.start('coord', { concurrency: 8 });
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 1 2 3 4; do echo "<fork next=\\"DONE.sh\\" item=\\"$i\\">WORK.sh</fork>"; done',
          'echo "<goto>DONE.sh</goto>"',
        ),
        'WORK.sh': sh(
          `echo "$item" >> ${started}`,
          'sleep 2',
          'echo "<result>done $item</result>"',
        ),
        'DONE.sh': sh('echo "<result>parent done</result>"'),
      },
      'coord',
    );
    const proc = execa(
      process.execPath,
      [CLI, wf, '--queue', redis.url, '--workflow-id', 'coord'],
      { cwd: box.dir, env: env(), reject: false },
    );
    while (lines(started).length < 4) await new Promise((r) => setTimeout(r, 50));
    proc.kill('SIGKILL');
    await proc;
    // The steps finish on the worker while no coordinator watches.
    await new Promise((r) => setTimeout(r, 2500));
    const r = await box.run(['--resume', 'coord', '--json'], env());
    assert.equal(r.code, 0, r.stderr);
    const state = box.state('coord');
    assert.deepEqual(Object.keys(state.results).sort(), [
      'main',
      'main_work1',
      'main_work2',
      'main_work3',
      'main_work4',
    ]);
    assert.equal(lines(started).length, 4, `no step ran twice: ${lines(started).join(',')}`);
    await w.kill();
  });

  it('Ctrl-C twice stops the steps on the workers; --resume runs them again', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const log = join(box.dir, 'ctrlc.log');
    const w = await workers.start('ctrlc', { concurrency: 8 });
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 1 2 3; do echo "<fork next=\\"DONE.sh\\" item=\\"$i\\">SLOW.sh</fork>"; done',
          'echo "<goto>DONE.sh</goto>"',
        ),
        'SLOW.sh': sh(
          `echo "start $item" >> ${log}`,
          'if [ -e "$RAYMOND_WORKFLOW_ID.fast" ]; then :; else sleep 30; fi',
          `echo "end $item" >> ${log}`,
          'echo "<result>ok $item</result>"',
        ),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'ctrlc',
    );
    const proc = execa(
      process.execPath,
      [CLI, wf, '--queue', redis.url, '--workflow-id', 'ctrlc'],
      { cwd: box.dir, env: env(), reject: false },
    );
    for (let i = 0; i < 200 && lines(log).length < 3; i++)
      await new Promise((r) => setTimeout(r, 50));
    proc.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    proc.kill('SIGINT');
    assert.equal((await proc).exitCode, 130);
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(
      lines(log).filter((l) => l.startsWith('end')),
      [],
      'the workers killed the running steps',
    );
    writeFileSync(join(w.workdir, 'ctrlc.fast'), '');
    const r = await box.run(['--resume', 'ctrlc', '--json'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main_slow2, 'ok 2');
    assert.equal(
      lines(log).filter((l) => l.startsWith('end')).length,
      3,
      'each stopped step ran again, once',
    );
    await w.kill();
  });

  it('a forged or altered job is refused and nothing of it runs', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const w = await workers.start('guard');
    const marker = join(box.dir, 'forged-ran');
    const conn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('steps', { connection: conn, prefix: 'raymond' });
    try {
      const job = {
        v: 1,
        kind: 'script',
        run: 'x',
        id: 'forged-1',
        root: box.dir,
        agent: {
          id: 'main',
          state: 'START.sh',
          session: null,
          branchFrom: null,
          cwd: box.dir,
          attributes: {},
          input: null,
          status: 'active',
        },
        file: 'START.sh',
        where: 'START.sh',
        timeoutMs: 5000,
        env: {},
        folder: 'f'.repeat(64),
        script: 'START.sh',
        pushRemote: 'origin',
        queuedAt: Date.now(),
      };
      const forged = signJob('another-secret-0123456789', job);
      const altered = signJob(TEST_SECRET, { ...job, id: 'altered-1' });
      altered.payload = altered.payload.replace(
        '"timeoutMs":5000',
        `"timeoutMs":5000,"prompt":"touch ${marker}"`,
      );
      await queue.add('step', forged, { jobId: 'forged-1' });
      await queue.add('step', altered, { jobId: 'altered-1' });
      for (const id of ['forged-1', 'altered-1']) {
        let state = '';
        for (let i = 0; i < 100 && state !== 'failed'; i++) {
          state = await queue.getJobState(id);
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(state, 'failed', id);
        assert.match((await queue.getJob(id))!.failedReason, /^refused: /);
      }
      assert.equal(existsSync(marker), false);
      assert.match(w.log(), /refused job forged-1/);
      assert.match(w.log(), /refused job altered-1/);
    } finally {
      await queue.close();
      conn.disconnect();
      await w.kill();
    }
  });

  it('[raymond.queue] in the config file, and the secret in a file', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const project = new Sandbox();
    try {
      project.write({
        '.raymond/config.toml': `[raymond.queue]\nurl = "${redis.url}"\nsecret_file = "secret.txt"\n`,
        'secret.txt': `${TEST_SECRET}\n`,
      });
      const w = await workers.start('config', {
        extraEnv: { RAYMOND_QUEUE_SECRET: '' },
        args: ['--queue-secret-file', join(project.dir, 'secret.txt')],
      });
      const wf = project.write(
        { 'START.sh': sh('echo "<result>ran on $(basename "$HOME")</result>"') },
        'cfg',
      );
      const r = await project.run([wf, '--json', '--workflow-id', 'cfg'], {
        RAYMOND_QUEUE_SECRET: '',
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'ran on home-config');
      assert.equal(
        project.state('cfg').options.queue,
        `${redis.url}`.replace(/\/?$/, ''),
        'the state file names the queue, for a resume',
      );
      const bad = await project.run([wf, '--queue', 'http://127.0.0.1:1', '--json'], {});
      assert.equal(bad.code, 64);
      assert.match(bad.stderr, /--queue "http:\/\/127\.0\.0\.1:1" is not a Redis URL/);
      assert.equal(project.states().length, 1, 'no state file for the refused run');
      await w.kill();
    } finally {
      project.remove();
    }
  });

  it("a Redis with a password: the URL's password works, a wrong one is one line", async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const guarded = (await startRedis({ password: 'pw-0123' }))!;
    const locked = new QueueWorkers(guarded.url, box.dir);
    try {
      const w = await locked.start('auth');
      const wf = box.write({ 'START.sh': sh('echo "<result>behind a password</result>"') }, 'auth');
      const r = await box.run([wf, '--queue', guarded.url, '--json'], env());
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'behind a password');
      assert.doesNotMatch(
        box.state(summary(r).workflow_id!).options.queue!,
        /pw-0123/,
        'the state file keeps no password',
      );
      const wrong = await box.run(
        [wf, '--queue', guarded.url.replace('pw-0123', 'nope'), '--json'],
        env(),
      );
      assert.equal(wrong.code, 1);
      assert.match(
        wrong.stderr,
        /Redis at redis:\/\/\*@127\.0\.0\.1:\d+ refused the connection: .*(WRONGPASS|invalid).*check the user and password/,
      );
      await w.kill();
    } finally {
      await locked.stopAll();
      await guarded.stop();
    }
  });

  it('rediss:// to a Redis whose certificate comes from a CA of its own', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const certs = join(box.dir, 'tls');
    const ssl = (...args: string[]) => execa('openssl', args, { cwd: certs, reject: false });
    mkdirSync(certs, { recursive: true });
    writeFileSync(join(certs, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    const made = [
      await ssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'ca.key',
        '-out',
        'ca.pem',
        '-days',
        '1',
        '-subj',
        '/CN=raymond-test-ca',
      ),
      await ssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'srv.key',
        '-out',
        'srv.csr',
        '-subj',
        '/CN=127.0.0.1',
      ),
      await ssl(
        'x509',
        '-req',
        '-in',
        'srv.csr',
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'srv.pem',
        '-days',
        '1',
        '-extfile',
        'ext.cnf',
      ),
    ];
    if (made.some((m) => m.exitCode !== 0))
      return t.skip('openssl could not make a test certificate: TLS not tested');
    const secure = await startRedis({
      tls: { cert: join(certs, 'srv.pem'), key: join(certs, 'srv.key'), port: await freePort() },
    }).catch(() => undefined);
    if (!secure) return t.skip('this redis-server has no TLS: TLS not tested');
    const trusted = { NODE_EXTRA_CA_CERTS: join(certs, 'ca.pem') };
    const tlsWorkers = new QueueWorkers(secure.url, box.dir);
    try {
      const w = await tlsWorkers.start('tls', { extraEnv: trusted });
      const wf = box.write({ 'START.sh': sh('echo "<result>over TLS</result>"') }, 'tls');
      const r = await box.run([wf, '--queue', secure.url, '--json'], { ...env(), ...trusted });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'over TLS');
      const untrusted = await box.run([wf, '--queue', secure.url], env());
      assert.equal(untrusted.code, 1);
      assert.match(
        untrusted.stderr,
        /cannot trust Redis at rediss:\/\/127\.0\.0\.1:\d+: .*certificate.*NODE_EXTRA_CA_CERTS/,
      );
      await w.kill();
    } finally {
      await tlsWorkers.stopAll();
      await secure.stop();
    }
  });

  it('Redis restarted mid-run: the run says so, waits, and goes on', async (t) => {
    if (!redis) return t.skip('redis-server is not installed: queue tests skipped');
    const w = await workers.start('restart');
    const go = join(box.dir, 'restart-go');
    const wf = box.write(
      {
        'START.sh': sh('echo \'<goto input="1">STEP.sh</goto>\''),
        'STEP.sh': sh(
          `touch ${go}.started`,
          'sleep 1',
          'n=$RAYMOND_INPUT',
          'if [ "$n" -lt 4 ]; then echo "<goto input=\\"$((n+1))\\">STEP.sh</goto>"; else echo "<result>counted to $n</result>"; fi',
        ),
      },
      'restart',
    );
    const run = box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'restart'], env());
    for (let i = 0; i < 200 && !existsSync(`${go}.started`); i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(`${go}.started`), 'the first step started');
    await redis.restart();
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'counted to 4');
    assert.match(r.stderr, /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+.*; waiting for it/);
    assert.match(r.stderr, /Redis at redis:\/\/127\.0\.0\.1:\d+ is back/);
    await w.kill();
  });
});
