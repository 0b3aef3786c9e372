import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEvent } from '../../machines/run-events.js';
import type { ResolvedDecisionData } from '../../machines/types.js';
import { createLiveView, type LiveView } from '../../src/cli/live-view.js';
import type { RunProgress } from '../../src/runtime/run-progress.js';

const started = (agentId: string, state: string): RunEvent => ({
  type: 'step.started',
  agentId,
  state,
});
const done = (
  agentId: string,
  from: string,
  decision: ResolvedDecisionData,
  to: string,
): RunEvent => ({
  type: 'step.done',
  agentId,
  from,
  decision,
  to,
  session: null,
  depth: 0,
  costUsd: 0,
  totalCostUsd: 0,
  workers: [],
});

const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
const T0 = 1_700_000_000_000;

function setup(
  over: {
    snapshot?: Partial<RunProgress>;
    verbose?: boolean;
    rows?: number;
    columns?: number;
  } = {},
) {
  const writes: string[] = [];
  const stream = {
    columns: over.columns ?? 60,
    rows: over.rows,
    write: (s: string) => (writes.push(s), true),
  };
  const clock = { t: T0 };
  const snap: RunProgress = {
    counts: { idle: 140, invoking: 12, 'awaiting-child': 3, terminated: 857, paused: 0, asking: 0 },
    costUsd: 1.2345,
    denials: [],
    budgetUsd: 10,
    startedAt: T0,
    steps: 0,
    failed: 0,
    ...over.snapshot,
  };
  const view = createLiveView({
    stream,
    snapshot: () => snap,
    verbose: over.verbose ?? false,
    now: () => clock.t,
    intervalMs: 5,
  });
  views.push(view);
  return {
    view,
    writes,
    clock,
    snap,
    all: () => strip(writes.join('')),
    lastWrite: () => writes[writes.length - 1] ?? '',
  };
}

const views: LiveView[] = [];
afterEach(() => {
  for (const v of views.splice(0)) v.stop();
});

describe('createLiveView', () => {
  it('draws counts, cost, budget, elapsed time and steps/s', async () => {
    const { writes, clock, snap, lastWrite } = setup();
    clock.t = T0 + 187_000;
    snap.steps = 1870;
    await sleep(20);
    assert.ok(writes.length > 0);
    assert.ok(writes[0]!.startsWith('\x1b[?25l'), 'hides the cursor');
    // 60 columns: the line breaks between figures, never inside one.
    assert.deepEqual(strip(lastWrite()).split('\n').slice(0, 2), [
      'raymond  12 running · 140 idle · 3 awaiting · 857 done',
      '0 paused   $1.23 / $10.00   3m07s   10.0 steps/s',
    ]);

    const wide = setup({ columns: 200 });
    wide.clock.t = T0 + 187_000;
    wide.snap.steps = 1870;
    await sleep(20);
    const line = strip(wide.lastWrite()).split('\n')[0]!;
    assert.equal(
      line,
      'raymond  12 running · 140 idle · 3 awaiting · 857 done · 0 paused   $1.23 / $10.00   3m07s   10.0 steps/s',
    );
    wide.snap.budgetUsd = 0;
    wide.clock.t += 1000;
    await sleep(20);
    assert.match(strip(wide.lastWrite()), /\$1\.23 \/ unlimited {3}3m08s/);
  });

  it('computes steps/s over a recent window', async () => {
    const { clock, snap, lastWrite } = setup({ columns: 200 });
    // Slow start, then a fast 5 s: the rate must reflect the recent pace, not the whole-run average.
    for (let i = 1; i <= 20; i++) {
      clock.t = T0 + i * 1000;
      snap.steps = i <= 10 ? i : 10 + (i - 10) * 100;
      await sleep(8);
    }
    const head = strip(lastWrite()).split('\n')[0]!;
    // Over the last 5 s: 500 steps, so 100/s; the whole-run average would be about 50/s.
    assert.match(head, / 100\.0 steps\/s$/);
  });

  it('scrolls events above the status area, in order, erasing the previous area first', async () => {
    const { view, writes, lastWrite } = setup({ verbose: true });
    await sleep(20);
    const drawn = strip(lastWrite()).split('\n').length - 1;
    view.event(started('main', 'START.md'));
    view.event(done('main', 'START.md', { kind: 'goto', target: 'REVIEW.md' }, 'REVIEW.md'));
    view.event({ type: 'print', agentId: 'main', text: 'hello' });
    view.event({ type: 'detail', text: 'detail' });
    const before = writes.length;
    await sleep(20);
    const batch = writes.slice(before).find((w) => w.includes('hello'))!;
    assert.ok(batch.startsWith(`\x1b[${drawn}F\x1b[J`), JSON.stringify(batch.slice(0, 12)));
    const lines = strip(batch).split('\n');
    assert.deepEqual(lines.slice(0, 4), [
      '[main] running START.md',
      '[main] START.md -> goto REVIEW.md',
      '[main] hello',
      'detail',
    ]);
    assert.match(lines[4]!, /^raymond/);
    assert.match(
      lines[6]!,
      /^ {2}main {2}print {2}START\.md {2}0s$/,
      'after the two status lines 60 columns take',
    );
  });

  it('skips debug lines unless verbose', async () => {
    const { view, all } = setup();
    view.event({ type: 'detail', text: 'secret detail' });
    view.event({ type: 'print', agentId: 'a', text: 'shown' });
    await sleep(20);
    assert.ok(all().includes('[a] shown'));
    assert.ok(!all().includes('secret detail'));
  });

  it('lists the most recent agents, newest first, with what they do and their age', async () => {
    const { view, clock, lastWrite } = setup();
    for (let i = 1; i <= 7; i++) {
      view.event(started(`w${i}`, `S${i}.md`));
      clock.t += 1000;
    }
    view.event(
      done(
        'w7',
        'S7.md',
        { kind: 'call', target: 'CHILD.md', returnTo: 'BACK.md', input: 'x' },
        'CHILD.md',
      ),
    );
    await sleep(20);
    const lines = strip(lastWrite())
      .split('\n')
      .filter((l) => l.startsWith('  '));
    assert.deepEqual(lines, [
      '  w7  call CHILD.md  S7.md  0s',
      '  w6  invoking       S6.md  2s',
      '  w5  invoking       S5.md  3s',
      '  w4  invoking       S4.md  4s',
      '  w3  invoking       S3.md  5s',
    ]);
  });

  it('truncates every status line to the columns', async () => {
    const { view, lastWrite } = setup();
    view.event(started(`main_${'x'.repeat(100)}`, 'A_VERY_LONG_STATE_NAME.md'));
    await sleep(20);
    const lines = strip(lastWrite()).split('\n').slice(0, -1);
    assert.ok(lines.length >= 2);
    for (const l of lines.filter((l) => !l.startsWith('['))) assert.ok(l.length <= 60, l);
    assert.match(
      lines.find((l) => l.startsWith('  main_'))!,
      /^ {2}main_x+… {2}0s$/,
      "the agent's age stays whole",
    );
  });

  it('aligns and cuts agent lines by terminal columns: CJK state and agent names take two a character', async () => {
    const { view, clock, lastWrite } = setup({ columns: 50 });
    view.event(started('main', '状態名前が長い状態名前が長い状態名前が長い.md'));
    clock.t += 1000;
    view.event(started('main_処理1', 'S.md'));
    await sleep(20);
    const lines = strip(lastWrite()).split('\n').slice(0, -1);
    const cjk = (l: string) => l.length + (l.match(/[\u3000-\u9fff]/g) ?? []).length;
    for (const l of lines.filter((l) => !l.startsWith('[')))
      assert.ok(cjk(l) <= 50, `${l}: ${cjk(l)} columns`);
    const agents = lines.filter((l) => l.startsWith('  '));
    assert.deepEqual(agents, [
      '  main_処理1  invoking  S.md  0s',
      '  main        invoking  状態名前が長い状態名…  1s',
    ]);
  });

  it('coalesces a burst of 5000 events into a handful of writes', async () => {
    const { view, writes, all } = setup();
    await sleep(20);
    const before = writes.length;
    for (let i = 0; i < 5000; i++) view.event(started(`w${i}`, 'WORK.md'));
    assert.equal(writes.length, before, 'nothing written synchronously');
    await sleep(20);
    assert.ok(writes.length - before <= 5, `${writes.length - before} writes`);
    const text = all();
    assert.ok(text.includes('[w0] running WORK.md'));
    assert.ok(text.includes('[w199] running WORK.md'));
    assert.ok(!text.includes('[w200] running WORK.md'));
    assert.ok(text.includes('... and 4800 more lines'));
  });

  it('flushes warnings at once, after the lines queued before them, and never drops them', () => {
    const { view, writes, lastWrite } = setup();
    for (let i = 0; i < 300; i++) view.event(started(`w${i}`, 'WORK.md'));
    view.event({ type: 'warning', text: 'budget nearly spent' });
    assert.equal(writes.length, 1);
    const lines = strip(lastWrite()).split('\n');
    const warnAt = lines.indexOf('warning: budget nearly spent');
    assert.ok(warnAt > lines.indexOf('[w199] running WORK.md'));
    assert.ok(lines.indexOf('... and 100 more lines') > warnAt);
    assert.match(lines.find((l) => l.startsWith('raymond')) ?? '', /^raymond/);
  });

  it('stop erases the area, flushes pending lines, shows the cursor, is idempotent and ends redraws', async () => {
    const { view, writes, clock, lastWrite } = setup();
    await sleep(20);
    const drawn = strip(lastWrite()).split('\n').length - 1;
    view.event({ type: 'print', agentId: 'main', text: 'last words' });
    view.stop();
    const out = lastWrite();
    assert.ok(out.startsWith(`\x1b[${drawn}F\x1b[J`));
    assert.ok(out.endsWith('\x1b[?25h'));
    assert.equal(strip(out), '[main] last words\n');
    const count = writes.length;
    view.stop();
    clock.t += 5000;
    await sleep(30);
    assert.equal(writes.length, count);
    view.event({ type: 'warning', text: 'late' });
    view.event({ type: 'detail', text: 'ignored' });
    assert.deepEqual(writes.slice(count), ['warning: late\n']);
  });

  it('does not redraw when nothing changed, but does once a second passes', async () => {
    const { writes, clock } = setup();
    await sleep(20);
    const count = writes.length;
    await sleep(30);
    assert.equal(writes.length, count);
    clock.t += 1000;
    await sleep(20);
    assert.equal(writes.length, count + 1);
  });

  it('keeps the area within the terminal rows', async () => {
    const { view, lastWrite } = setup({ rows: 3 });
    for (let i = 0; i < 5; i++) view.event(started(`w${i}`, 'S.md'));
    await sleep(20);
    assert.equal(
      strip(lastWrite())
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('[')).length,
      2,
    );
  });
});
