import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import type { ExecutionRequest, StateExecutor } from '../../src/executors/executor.js';
import { byStem, pickEntry, stubbedScripts } from '../../src/testing/scripted-steps.js';

type Entry = { agent?: string; when?: Record<string, string>; text: string };
const fields = (e: Entry) => e;

describe('pickEntry', () => {
  const entries: Entry[] = [
    { when: { item: 'banana' }, text: 'yellow 1' },
    { text: 'generic 1' },
    { agent: 'main_w2', text: 'w2 only' },
    { when: { item: 'banana' }, text: 'yellow 2' },
    { text: 'generic 2' },
  ];
  it('gives an agent the entries that name it, by attribute or id, in order', () => {
    const banana = { id: 'main_w1', attributes: { item: 'banana' } };
    assert.equal(pickEntry(entries, banana, 1, fields)?.text, 'yellow 1');
    assert.equal(pickEntry(entries, banana, 2, fields)?.text, 'yellow 2');
    assert.equal(pickEntry(entries, banana, 3, fields), undefined);
    assert.equal(pickEntry(entries, { id: 'main_w2', attributes: {} }, 1, fields)?.text, 'w2 only');
  });
  it('gives every other agent the entries that name nobody', () => {
    const apple = { id: 'main_w3', attributes: { item: 'apple' } };
    assert.deepEqual(
      [1, 2, 3].map((n) => pickEntry(entries, apple, n, fields)?.text),
      ['generic 1', 'generic 2', undefined],
    );
    assert.equal(pickEntry(undefined, apple, 1, fields), undefined);
  });
});

describe('byStem', () => {
  it('keys states by stem, whether written with their extension or not', () => {
    assert.deepEqual([...byStem({ 'REVIEW.md': 1, CHECK: 2 }).keys()], ['REVIEW', 'CHECK']);
  });
});

describe('stubbedScripts', () => {
  const real: StateExecutor = {
    execute: () => Promise.resolve({ output: 'real', session: null, costUsd: 0 }),
  };
  const req = (file: string) =>
    ({ file, scope: { display: (f: string) => `wf/${f}` } }) as unknown as ExecutionRequest;
  const running = new Set<Promise<unknown>>();
  const wrap = stubbedScripts(
    { scripts: { 'OK.sh': { stdout: '<goto>X</goto>' }, BAD: { exit: 3 } } },
    running,
  );
  it('prints the stub and exits 0, or fails as a script with that exit code would', async () => {
    assert.equal((await wrap(real).execute(req('/w/OK.sh'))).output, '<goto>X</goto>');
    await assert.rejects(wrap(real).execute(req('/w/BAD.sh')), (err: unknown) => {
      assert.ok(err instanceof RaymondError);
      assert.equal(err.code, 'ERR_SCRIPT_FAILED');
      assert.equal(err.message, 'exited with code 3 (stubbed by the test)');
      assert.equal(err.file, 'wf//w/BAD.sh');
      return true;
    });
  });
  it('runs every other script for real, kept among the running steps until it ends', async () => {
    let finish!: () => void;
    const slow: StateExecutor = {
      execute: () =>
        new Promise((ok) => (finish = () => ok({ output: 'real', session: null, costUsd: 0 }))),
    };
    const pending = wrap(slow).execute(req('/w/OTHER.sh'));
    assert.equal(running.size, 1);
    finish();
    assert.equal((await pending).output, 'real');
    await Promise.all(running);
    assert.equal(running.size, 0);
    assert.equal((await wrap(real).execute(req('/w/OTHER.sh'))).output, 'real');
  });
});
