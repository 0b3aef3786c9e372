import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeArgv } from '../../src/cli/program.js';

describe('normalizeArgv', () => {
  it('reads a port after --inspect only when it is digits', () => {
    assert.deepEqual(normalizeArgv(['node', 'raymond', '--inspect', 'my-workflow']), [
      'node',
      'raymond',
      '--inspect=8080',
      'my-workflow',
    ]);
    assert.deepEqual(normalizeArgv(['node', 'raymond', 'wf', '--inspect']), [
      'node',
      'raymond',
      'wf',
      '--inspect=8080',
    ]);
    assert.deepEqual(normalizeArgv(['node', 'raymond', 'wf', '--inspect', '9000']), [
      'node',
      'raymond',
      'wf',
      '--inspect',
      '9000',
    ]);
    assert.deepEqual(normalizeArgv(['node', 'raymond', 'wf', '--inspect=9001']), [
      'node',
      'raymond',
      'wf',
      '--inspect=9001',
    ]);
  });
});
