import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  CODEX_SESSIONS,
  codexHome,
  codexBaseOf,
  codexSessionPlace,
  findCodexSession,
  latestCodexSession,
  rolloutState,
} from '../../../src/agents/codex/codex-sessions.js';

const home = mkdtempSync(join(tmpdir(), 'raymond-codex-sessions-'));
const env = { CODEX_HOME: home };
after(() => rmSync(home, { recursive: true, force: true }));

const usage = (input: number, output: number) => ({
  input_tokens: input,
  cached_input_tokens: input / 10,
  cache_write_input_tokens: 0,
  output_tokens: output,
  reasoning_output_tokens: 0,
  total_tokens: input + output,
});
const tokenCount = (input: number, output: number) =>
  JSON.stringify({
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: { total_token_usage: usage(input, output), last_token_usage: usage(1, 1) },
    },
  });
const turnContext = (model: string) =>
  JSON.stringify({ type: 'turn_context', payload: { cwd: '/x', model } });

/** A rollout as codex writes one: session_meta first (with its long instructions), then the thread's lines. */
function rollout(
  day: string,
  time: string,
  id: string,
  meta: Record<string, unknown>,
  body: string[] = [],
): string {
  const [y, m, d] = day.split('-');
  const dir = join(home, 'sessions', y!, m!, d!);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `rollout-${day}T${time}-${id}.jsonl`);
  const first = JSON.stringify({
    type: 'session_meta',
    payload: { id, base_instructions: { text: 'x'.repeat(100_000) }, ...meta },
  });
  writeFileSync(file, [first, ...body, ''].join('\n'));
  return file;
}

const A = '01a21e65-0000-7000-8000-00000000000a';
const B = '01a21e65-0000-7000-8000-00000000000b';
const C = '01a21e65-0000-7000-8000-00000000000c';
const fileA = rollout('2026-11-25', '10-00-00', A, { cwd: '/work/one' }, [
  turnContext('gpt-5.5'),
  tokenCount(1000, 50),
  JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: null } }),
]);
const fileB = rollout(
  '2026-11-26',
  '11-00-00',
  B,
  { cwd: '/work/one', forked_from_id: A, history_base: { thread_id: A } },
  [
    turnContext('gpt-5.5-mini'),
    tokenCount(3000, 70),
    ...Array.from({ length: 400 }, (_, i) =>
      JSON.stringify({ type: 'response_item', payload: { text: `${i} ${'y'.repeat(1000)}` } }),
    ),
  ],
);
const fileC = rollout('2026-11-27', '12-00-00', C, {
  cwd: '/work/two',
  history_base: { thread_id: B },
});
utimesSync(fileA, new Date(2026, 10, 27, 13), new Date(2026, 10, 27, 13));
utimesSync(fileB, new Date(2026, 10, 26, 13), new Date(2026, 10, 26, 13));

describe('codex sessions', () => {
  it('lives in CODEX_HOME, else ~/.codex', () => {
    assert.equal(codexHome(env), home);
    assert.equal(codexHome({ HOME: '/home/u' }), '/home/u/.codex');
  });

  it('finds a thread by its id in any day folder', () => {
    assert.equal(findCodexSession(A, env), fileA);
    assert.equal(findCodexSession(C, env), fileC);
    assert.equal(findCodexSession('01a21e65-0000-7000-8000-0000000000ff', env), undefined);
    assert.equal(findCodexSession(A, { CODEX_HOME: join(home, 'none') }), undefined);
    assert.equal(CODEX_SESSIONS.find(B, '/anywhere', {}, env), fileB);
  });

  it("places a moved rollout over the thread's own file, else in its name's day folder", () => {
    assert.equal(codexSessionPlace(A, 'rollout-2020-01-01T00-00-00-whatever.jsonl', env), fileA);
    const D = '01a21e65-0000-7000-8000-00000000000d';
    const name = `rollout-2025-02-03T04-05-06-${D}.jsonl`;
    assert.equal(codexSessionPlace(D, name, env), join(home, 'sessions/2025/02/03', name));
    assert.equal(
      CODEX_SESSIONS.placeFor(D, name, '/x', {}, env),
      join(home, 'sessions/2025/02/03', name),
    );
  });

  it("gives a rollout named otherwise (codex would not find it) a name of codex's form, today", () => {
    const E = '01a21e65-0000-7000-8000-00000000000e';
    const place = codexSessionPlace(E, `${E}.jsonl`, env);
    const t = new Date();
    const day = `${t.getFullYear()}/${String(t.getMonth() + 1).padStart(2, '0')}/${String(t.getDate()).padStart(2, '0')}`;
    assert.ok(place.startsWith(join(home, 'sessions', day, 'rollout-')), place);
    assert.match(
      place,
      new RegExp(`/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${E}\\.jsonl$`),
    );
    // A name for another thread is not taken.
    assert.ok(
      codexSessionPlace(E, `rollout-2025-02-03T04-05-06-${A}.jsonl`, env).endsWith(`-${E}.jsonl`),
    );
  });

  it('finds the newest thread begun in a folder (by its last change), for --continue-session', () => {
    assert.equal(latestCodexSession('/work/one', env), A);
    assert.equal(latestCodexSession('/work/two', env), C);
    assert.equal(latestCodexSession('/work/three', env), undefined);
  });

  it("reads a rollout's last usage and model from its end, and from its whole when the end has neither", () => {
    assert.deepEqual(rolloutState(fileA), {
      usage: {
        input_tokens: 1000,
        cached_input_tokens: 100,
        output_tokens: 50,
        reasoning_output_tokens: 0,
      },
      model: 'gpt-5.5',
    });
    // 400 kB of later lines: the usage and the model are before the tail.
    assert.deepEqual(rolloutState(fileB), {
      usage: {
        input_tokens: 3000,
        cached_input_tokens: 300,
        output_tokens: 70,
        reasoning_output_tokens: 0,
      },
      model: 'gpt-5.5-mini',
    });
    assert.deepEqual(rolloutState(fileC), {});
  });

  it("lists a fork's rollout and its ancestors' (codex resumes a fork only with them)", () => {
    const base = (file: string) => codexBaseOf(readFileSync(file, 'utf8'));
    assert.deepEqual([base(fileC), base(fileB), base(fileA)], [B, A, undefined]);
    assert.equal(codexBaseOf('not json'), undefined);
  });
});
