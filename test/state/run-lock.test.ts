import assert from 'node:assert/strict';
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireLock, claimFile, lockHolder } from '../../src/state/run-lock.js';
import { RaymondError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const CONTENDER = new URL('../helpers/lock-contender.ts', import.meta.url).pathname;

/** A contender process and the messages it sent, one at a time. */
class Contender {
  readonly child: ChildProcess = fork(CONTENDER, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  private readonly inbox: unknown[] = [];
  private waiting: ((m: unknown) => void) | undefined;

  constructor() {
    this.child.on('message', (m) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w(m);
      } else this.inbox.push(m);
    });
  }

  next<T>(): Promise<T> {
    if (this.inbox.length > 0) return Promise.resolve(this.inbox.shift() as T);
    return new Promise((resolve) => (this.waiting = resolve as (m: unknown) => void));
  }

  send(order: unknown): void {
    this.child.send(order as never);
  }
}

/** Starts `n` contenders, and stops them after the test. */
async function contenders(n: number): Promise<Contender[]> {
  const all = Array.from({ length: n }, () => new Contender());
  after(() => all.forEach((c) => c.send({ exit: true })));
  for (const c of all) await c.next();
  return all;
}

/** One round: every contender takes `lock` at the same millisecond; holders keep it until all answered. Returns how many got it. */
async function race(
  all: Contender[],
  lock: string,
): Promise<{ holders: number; refusals: string[] }> {
  const at = Date.now() + 60;
  for (const c of all) c.send({ lock, at });
  const answers = await Promise.all(all.map((c) => c.next<{ acquired: boolean; code?: string }>()));
  const holders = all.filter((_, i) => answers[i]!.acquired);
  for (const c of holders) c.send({ release: true });
  for (const c of holders) await c.next();
  return {
    holders: holders.length,
    refusals: answers.filter((a) => !a.acquired).map((a) => a.code!),
  };
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync('true');
  return r.pid;
}

describe('run lock', () => {
  it('30 pairs of processes taking a fresh lock in the same millisecond: exactly one holds it each time', async () => {
    const pair = await contenders(2);
    for (let round = 0; round < 30; round++) {
      const lock = join(dir, `fresh-${round}.lock`);
      const { holders, refusals } = await race(pair, lock);
      assert.equal(holders, 1, `round ${round}: ${holders} holders`);
      assert.deepEqual(refusals, ['ERR_LOCKED']);
      assert.equal(existsSync(lock), false, 'released');
    }
  });

  it('10 rounds of four processes taking over a dead owner’s lock at once: exactly one holds it each time', async () => {
    const four = await contenders(4);
    for (let round = 0; round < 10; round++) {
      const lock = join(dir, `stale-${round}.lock`);
      writeFileSync(
        lock,
        JSON.stringify({
          pid: deadPid(),
          host: hostname(),
          started_at: '2026-01-01T00:00:00.000Z',
        }),
      );
      const { holders, refusals } = await race(four, lock);
      assert.equal(holders, 1, `round ${round}: ${holders} holders`);
      assert.deepEqual(refusals, ['ERR_LOCKED', 'ERR_LOCKED', 'ERR_LOCKED']);
    }
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.includes('.lock.')),
      [],
      'no temporary or claim file is left',
    );
  });

  it('believes only a lock file that fits its schema: a malformed one is not a lock, however it names its holder', () => {
    const lock = join(dir, 'schema.lock');
    const good = {
      pid: 4242,
      host: 'elsewhere.example',
      started_at: '2026-01-01T00:00:00.000Z',
      nonce: 'n',
    };
    writeFileSync(lock, JSON.stringify(good));
    assert.deepEqual(lockHolder(lock), { ...good, foreign: true });
    const malformed = [
      { ...good, pid: '4242' },
      { ...good, pid: -1 },
      { ...good, pid: 1.5 },
      { ...good, host: 7 },
      { pid: 4242, host: 'elsewhere.example' },
      { ...good, nonce: 5 },
      [good],
      null,
    ];
    for (const value of malformed) {
      writeFileSync(lock, JSON.stringify(value));
      assert.equal(lockHolder(lock), undefined, JSON.stringify(value));
      assert.throws(
        () => acquireLock(lock, 'schema'),
        (err: unknown) =>
          err instanceof RaymondError && /being locked by another process/.test(err.message),
        'a young unreadable lock is held',
      );
    }
    rmSync(lock);
  });

  it('counts an unreadable lock as held while it is young, and takes it over once old', () => {
    const lock = join(dir, 'young.lock');
    writeFileSync(lock, '');
    assert.equal(lockHolder(lock), undefined, 'held by nobody it can name');
    assert.throws(
      () => acquireLock(lock, 'young'),
      (err: unknown) =>
        err instanceof RaymondError &&
        err.code === 'ERR_LOCKED' &&
        /being locked by another process/.test(err.message),
    );
    assert.equal(readFileSync(lock, 'utf8'), '', 'left as it was');
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    const release = acquireLock(lock, 'young');
    assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, process.pid);
    release();
    assert.equal(existsSync(lock), false);
  });

  it('takes over a stale lock whose earlier claimant died, and refuses while a live claimant holds the claim', () => {
    const lock = join(dir, 'claimed.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: deadPid(), host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }),
    );
    const first = claimFile(lock, 1)!;
    writeFileSync(
      first,
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        started_at: '2026-01-01T00:00:01.000Z',
      }),
    );
    assert.throws(
      () => acquireLock(lock, 'claimed'),
      (err: unknown) =>
        err instanceof RaymondError &&
        err.code === 'ERR_LOCKED' &&
        err.message.includes(`process ${process.pid}`),
    );
    writeFileSync(
      first,
      JSON.stringify({ pid: deadPid(), host: hostname(), started_at: '2026-01-01T00:00:01.000Z' }),
    );
    const release = acquireLock(lock, 'claimed');
    assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, process.pid);
    release();
    rmSync(first);
  });
});
