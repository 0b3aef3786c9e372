import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { RunEvent } from '../../machines/run-events.js';
import type { TurnWidth } from '../../src/agents/agent-backend.js';
import { RESET_MARGIN_MS, WIDTH_TUNING } from '../../src/agents/width-rules.js';
import type { RaymondError } from '../../src/errors.js';
import { parseQueueUrl } from '../../src/queue/queue-url.js';
import { accountKey, WorkerWidths } from '../../src/queue/worker-widths.js';
import { NO_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

const tuning = { ...WIDTH_TUNING, start: 4, holdMs: 0 };
const signal = () => new AbortController().signal;
const env = { ANTHROPIC_BASE_URL: 'http://api.test', ANTHROPIC_API_KEY: 'sk-test' };

/** Starts `n` turns and waits until each has its place. */
async function startAll(w: TurnWidth, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => w.acquire(signal())));
}

/** Starts `n` turns and says how many got a place within `ms`. */
async function startMany(w: TurnWidth, n: number, ms = 200): Promise<number> {
  let started = 0;
  for (let i = 0; i < n; i++)
    void w.acquire(signal()).then(
      () => started++,
      () => {},
    );
  await sleep(ms);
  return started;
}

describe('SharedWidth: one account width for every queue worker, in Redis', () => {
  let server: RedisServer | undefined;
  const links: Redis[] = [];
  const hubs: WorkerWidths[] = [];
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    for (const h of hubs) await h.close();
    for (const r of links) r.disconnect();
    await server?.stop();
  });

  /** A worker's widths on its own connection, as `raymond worker` has them. */
  function worker(name: string, leaseMs = 30_000, pollMs = 500): WorkerWidths {
    const target = parseQueueUrl(server!.url);
    const redis = new Redis(server!.url);
    links.push(redis);
    const hub = new WorkerWidths(redis, target, name, { tuning, leaseMs, pollMs });
    hubs.push(hub);
    return hub;
  }

  it('two workers on one Redis share one width; a place given back on one lets a turn of the other start', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const a = worker('a1')
      .of('claude', { ...env, ANTHROPIC_API_KEY: 'k1' }, 50)
      .for(() => {});
    // b asks again only every 5 s unless woken.
    const b = worker('b1', 30_000, 5000)
      .of('claude', { ...env, ANTHROPIC_API_KEY: 'k1' }, 50)
      .for(() => {});
    await startAll(a, 3);
    let got = 0;
    for (let i = 0; i < 3; i++)
      void b.acquire(signal()).then(
        () => got++,
        () => {},
      );
    await sleep(150);
    assert.equal(got, 1, 'the account had 1 place left of 4');
    const started = Date.now();
    await a.release(false);
    while (got < 2 && Date.now() - started < 2000) await sleep(5);
    assert.equal(got, 2);
    const waited = Date.now() - started;
    assert.ok(waited < 2000, `woken by the place given back (${waited} ms), not by its poll`);
  });

  it('a refusal seen by one worker narrows the width for the other, and says so on the worker that saw it', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const aEvents: RunEvent[] = [];
    const bEvents: RunEvent[] = [];
    const ha = worker('a2');
    const hb = worker('b2');
    const a = ha.of('claude', { ...env, ANTHROPIC_API_KEY: 'k2' }, 50).for((e) => aEvents.push(e));
    const b = hb.of('claude', { ...env, ANTHROPIC_API_KEY: 'k2' }, 50).for((e) => bEvents.push(e));
    await startAll(a, 2);
    await startAll(b, 2);
    a.limited(429, 100);
    await sleep(50);
    assert.deepEqual(
      aEvents.map((e) => e.type === 'width.changed' && [e.why, e.width, e.was]),
      [['rate-limited', 2, 4]],
      'floor(4 running * 0.7)',
    );
    assert.equal(bEvents.length, 0, 'the other worker says nothing');
    assert.equal(await startMany(b, 1, 300), 0, 'b: 4 running of a width of 2');
    await sleep(1000);
    b.limited(529, null);
    await sleep(50);
    assert.deepEqual(
      bEvents.map((e) => e.type === 'width.changed' && [e.why, e.width, e.was]),
      [['overloaded', 1, 2]],
      "the other worker's refusal, a window later, narrows from the width the first one left",
    );
  });

  it('the leases of a worker that vanished lapse: its places come back', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const gone = worker('gone', 300).of('claude', { ...env, ANTHROPIC_API_KEY: 'k3' }, 50);
    const turns = gone.for(() => {});
    await Promise.all([1, 2, 3, 4].map(() => turns.acquire(signal())));
    const leased = Date.now();
    // A killed worker: no refresh, no release.
    (gone as unknown as { refresher: NodeJS.Timeout }).refresher.close();
    const live = worker('live', 300).of('claude', { ...env, ANTHROPIC_API_KEY: 'k3' }, 50);
    await live.for(() => {}).acquire(signal());
    const waited = Date.now() - leased;
    assert.ok(waited >= 200 && waited < 2000, `waited ${waited} ms for a lapsed lease`);
    // A live worker's leases are refreshed while its turns run.
    const held = worker('held', 300).of('claude', { ...env, ANTHROPIC_API_KEY: 'k4' }, 50);
    const heldTurns = held.for(() => {});
    await Promise.all([1, 2, 3, 4].map(() => heldTurns.acquire(signal())));
    await sleep(900);
    const other = worker('other', 300).of('claude', { ...env, ANTHROPIC_API_KEY: 'k4' }, 50);
    assert.equal(
      await startMany(
        other.for(() => {}),
        1,
        600,
      ),
      0,
      'still full after 5 lease times',
    );
  });

  it('a usage limit seen by one worker refuses the waiting and new turns of both until the reset', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const events: RunEvent[] = [];
    const a = worker('a4').of('claude', { ...env, ANTHROPIC_API_KEY: 'k5' }, 4);
    const b = worker('b4').of('claude', { ...env, ANTHROPIC_API_KEY: 'k5' }, 4);
    await startAll(
      a.for(() => {}),
      4,
    );
    const waiting = b.for(() => {}).acquire(signal());
    const reset = Date.now() + 300;
    a.for((e) => events.push(e)).park(reset, 'Claude usage limit reached');
    // Each refused turn's agent pauses with the reset itself; the width waits RESET_MARGIN_MS past it.
    const until = reset + RESET_MARGIN_MS;
    const parked = (e: RaymondError) =>
      e.code === 'ERR_USAGE_LIMIT' && e.details.resetsAt === reset && e.details.costUsd === 0;
    await assert.rejects(waiting, parked);
    await assert.rejects(a.for(() => {}).acquire(signal()), parked);
    await assert.rejects(b.for(() => {}).acquire(signal()), parked);
    const e = events.at(-1)!;
    assert.ok(e.type === 'width.changed' && e.why === 'usage-limit' && e.width === 0);
    assert.equal(e.until, new Date(until).toISOString());
    for (let i = 0; i < 4; i++) await a.for(() => {}).release(true);
    await sleep(until - Date.now() + 50);
    await b.for(() => {}).acquire(signal());
  });

  it('a turn stopped while it waits leaves the queue, and a place it got meanwhile goes back', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const w = worker('a5')
      .of('claude', { ...env, ANTHROPIC_API_KEY: 'k6' }, 1)
      .for(() => {});
    await w.acquire(signal());
    const ctl = new AbortController();
    const waiting = w.acquire(ctl.signal);
    await sleep(50);
    ctl.abort();
    await assert.rejects(waiting, /stopped/);
    await w.release(true);
    await w.acquire(signal());
  });

  it('accounts are told apart by endpoint and credentials, and no secret is in the key', () => {
    const k = accountKey('claude', env);
    assert.equal(k, accountKey('claude', { ...env, HOME: '/elsewhere' }));
    assert.notEqual(k, accountKey('claude', { ...env, ANTHROPIC_API_KEY: 'sk-other' }));
    assert.notEqual(k, accountKey('claude', { ...env, ANTHROPIC_BASE_URL: 'http://b.test' }));
    assert.notEqual(k, accountKey('codex', env));
    assert.match(k, /^raymond:width:claude:[0-9a-f]{24}$/);
  });
});
