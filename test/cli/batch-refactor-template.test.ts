import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { batchRefactor } from '../../src/cli/batch-refactor-template.js';
import { ROOT } from '../helpers/cli.js';

describe('the batch-refactor template', () => {
  it("scaffolds the bundled example's states, byte for byte", () => {
    const files = batchRefactor('refactor', 'raymond');
    for (const state of ['START.sh', 'WORKER.md', 'MERGE.sh'])
      assert.equal(
        files[`states/${state}`],
        readFileSync(join(ROOT, 'workflows/examples/batch-refactor', state), 'utf8'),
        `states/${state} has drifted from workflows/examples/batch-refactor/${state}`,
      );
  });
});
