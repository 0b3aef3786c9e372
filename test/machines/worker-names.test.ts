import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_WORKER_ID_LENGTH,
  forkCounterFloors,
  nameWorkers,
  workerId,
  workerNumber,
  workerStem,
} from '../../machines/worker-names.js';

describe('worker names', () => {
  it('takes up to six letters and digits of the target, lower case, without extension', () => {
    assert.equal(workerId('main', 'WORKER.md', 1), 'main_worker1');
    assert.equal(workerId('main', 'ANALYZE_FILE.sh', 3), 'main_analyz3');
    assert.equal(workerId('main_worker1', '---.sh', 2), 'main_worker1_state2');
  });

  it('drops the digits a stem ends with, so the number after it is always the counter', () => {
    assert.equal(workerStem('W1.sh'), 'w');
    assert.equal(workerStem('STEP2'), 'step');
    assert.equal(workerStem('abc123def.md'), 'abc', 'the six letters end in digits');
    assert.equal(workerStem('a1b.sh'), 'a1b', 'digits inside stay');
    assert.equal(workerStem('2024.sh'), 'state', 'nothing left');
    assert.equal(workerId('main', 'W1.sh', 1), 'main_w1');
  });

  it('gives W1 as the first worker and ten W workers after it eleven different ids', () => {
    const ids = [
      ...nameWorkers('main', 0, ['W1.sh']),
      ...nameWorkers('main', 1, Array(10).fill('W.sh')),
    ];
    assert.deepEqual(ids.slice(0, 3), ['main_w1', 'main_w2', 'main_w3']);
    assert.equal(new Set(ids).size, 11, ids.join(' '));
    // In one step too.
    assert.equal(new Set(nameWorkers('main', 0, ['W1.sh', ...Array(10).fill('W.sh')])).size, 11);
  });

  it("names a fork's workers in order from the counter before the step", () => {
    assert.deepEqual(nameWorkers('main', 4, ['A.sh', 'B.md', 'A.sh']), [
      'main_a5',
      'main_b6',
      'main_a7',
    ]);
    assert.deepEqual(nameWorkers('main', 0, []), []);
  });

  it('reads the parent and the number back from any worker-shaped id', () => {
    assert.deepEqual(workerNumber('main_w11'), { parentId: 'main', n: 11 });
    assert.deepEqual(workerNumber('main_worker1_step21'), { parentId: 'main_worker1', n: 21 });
    assert.equal(workerNumber('main'), undefined);
    assert.equal(workerNumber('main_worker'), undefined);
    assert.equal(workerNumber(`main_w${'9'.repeat(40)}`), undefined, 'no counter gets that high');
  });

  it("raises each parent's counter above the numbers its ids end with (ids of an older rule)", () => {
    // The older rule named the first W1 worker main_w11, which the current one gives the eleventh W.
    const floors = forkCounterFloors(['main', 'main_w11', 'main_w2', 'main_w11_x3']);
    assert.deepEqual(
      [...floors],
      [
        ['main', 11],
        ['main_w11', 3],
      ],
    );
    const next = nameWorkers('main', floors.get('main')!, Array(10).fill('W.sh'));
    assert.ok(!next.includes('main_w11'), next.join(' '));
  });

  it('keeps ids at most MAX_WORKER_ID_LENGTH long, however deep the chain, the same way each time and apart for two parents', () => {
    let id = 'main';
    const seen = new Set<string>();
    for (let level = 0; level < 500; level++) {
      const next = workerId(id, 'WORKER.md', 1);
      assert.ok(next.length <= MAX_WORKER_ID_LENGTH, next);
      assert.equal(workerId(id, 'WORKER.md', 1), next, 'the same name after a crash');
      assert.ok(!seen.has(next));
      seen.add(next);
      id = next;
    }
    const long = 'main' + '_worker1'.repeat(12);
    assert.equal(workerId(long, 'W.sh', 2).length <= MAX_WORKER_ID_LENGTH, true);
    assert.match(workerId(long, 'W.sh', 2), /^main-[0-9a-f]{16}_w2$/);
    assert.notEqual(workerId(long, 'W.sh', 2), workerId(`${long}_w1`, 'W.sh', 2));
    assert.equal(workerNumber(workerId(long, 'W.sh', 2))!.n, 2);
    assert.deepEqual(
      [...forkCounterFloors([workerId(long, 'W.sh', 2)])],
      [],
      'a shortened parent is no agent: no floor',
    );
  });
});
