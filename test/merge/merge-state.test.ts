import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import {
  emptyMergeState,
  mergeStatePath,
  mergeStatus,
  readMergeState,
  writeMergeState,
} from '../../src/merge/merge-state.js';
import { removeTemps, tempDir } from '../helpers/git-repo.js';

after(removeTemps);

describe('merge state', () => {
  it('lives beside the run as <id>.merge, which --list does not take for a run', () => {
    assert.equal(mergeStatePath('/s', 'run-1'), '/s/run-1.merge');
    assert.throws(() => mergeStatePath('/s', '../x'), /invalid workflow id/);
  });

  it('is written whole and read back; a run never merged has none', async () => {
    const dir = tempDir();
    assert.equal(await readMergeState(dir, 'r1'), undefined);
    const state = emptyMergeState('r1');
    state.total_cost_usd = 0.25;
    state.turns.push({
      agent: 'main_w1',
      into: 'm',
      attempt: 1,
      from: 'a',
      session: 'b',
      cost_usd: 0.25,
      at: 'now',
    });
    state.targets.m = {
      into: 'm',
      repo: '/r',
      base: 'b',
      order: ['main_w1', 'main_w2'],
      branches: {
        main_w1: { agent: 'main_w1', branch: 'x', status: 'merged', attempts: 1, cost_usd: 0.25 },
        main_w2: {
          agent: 'main_w2',
          branch: 'y',
          status: 'left_out',
          reason: 'conflict',
          attempts: 0,
          cost_usd: 0,
        },
      },
    };
    await writeMergeState(dir, state);
    assert.deepEqual(await readMergeState(dir, 'r1'), state);
    assert.deepEqual(await mergeStatus(dir, 'r1'), {
      cost_usd: 0.25,
      turns: state.turns,
      into: [{ branch: 'm', merged: 1, left_out: 1 }],
    });
  });

  it('a damaged file is one error naming it', async () => {
    const dir = tempDir();
    writeFileSync(mergeStatePath(dir, 'r2'), '{"version":1');
    await assert.rejects(
      readMergeState(dir, 'r2'),
      (err: Error & { file?: string }) =>
        /not valid JSON/.test(err.message) && err.file === mergeStatePath(dir, 'r2'),
    );
    writeFileSync(mergeStatePath(dir, 'r2'), JSON.stringify({ ...emptyMergeState('other') }));
    await assert.rejects(readMergeState(dir, 'r2'), /not a merge state of this run/);
  });
});
