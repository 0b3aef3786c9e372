import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestName, editDistance } from '../src/closest-name.js';

const COMMANDS = [
  'worktrees',
  'merge',
  'lint',
  'diagram',
  'convert',
  'replay',
  'serve',
  'worker',
  'workers',
  'completion',
  'new',
  'help',
];

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    assert.equal(editDistance('lint', 'lint'), 0);
    assert.equal(editDistance('lnit', 'lint'), 1);
    assert.equal(editDistance('serv', 'serve'), 1);
    assert.equal(editDistance('lont', 'lint'), 1);
    assert.equal(editDistance('hello', 'help'), 2);
    assert.equal(editDistance('', 'new'), 3);
  });
});

describe('closestName', () => {
  it('finds the command one or two edits away whose letters mostly agree', () => {
    assert.equal(closestName('lnit', COMMANDS), 'lint');
    assert.equal(closestName('serv', COMMANDS), 'serve');
    assert.equal(closestName('mrege', COMMANDS), 'merge');
    assert.equal(closestName('diagarm', COMMANDS), 'diagram');
    assert.equal(closestName('LINT', COMMANDS), 'lint');
  });

  it('prefers the nearest name: worker for workr, workers for workerss', () => {
    assert.equal(closestName('workr', COMMANDS), 'worker');
    assert.equal(closestName('workerss', COMMANDS), 'workers');
  });

  it('finds nothing for a word that only shares a few letters', () => {
    assert.equal(closestName('hello', COMMANDS), undefined);
    assert.equal(closestName('my-workflow', COMMANDS), undefined);
    assert.equal(closestName('x', COMMANDS), undefined);
  });

  it('ignores case on both sides, as state names are upper case', () => {
    assert.equal(closestName('REVEIW', ['START', 'REVIEW', 'REVISE']), 'REVIEW');
    assert.equal(closestName('reveiw', ['START', 'REVIEW', 'REVISE']), 'REVIEW');
  });
});
