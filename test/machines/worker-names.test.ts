import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nameWorkers, workerId } from '../../machines/worker-names.js';

describe('worker names', () => {
  it('takes up to six letters and digits of the target, lower case, without extension', () => {
    assert.equal(workerId('main', 'WORKER.md', 1), 'main_worker1');
    assert.equal(workerId('main', 'ANALYZE_FILE.sh', 3), 'main_analyz3');
    assert.equal(workerId('main_worker1', '---.sh', 2), 'main_worker1_state2');
  });

  it('names a fork\'s workers in order from the counter before the step', () => {
    assert.deepEqual(nameWorkers('main', 4, ['A.sh', 'B.md', 'A.sh']), ['main_a5', 'main_b6', 'main_a7']);
    assert.deepEqual(nameWorkers('main', 0, []), []);
  });
});
