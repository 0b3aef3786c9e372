import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { projectRootOf } from '../../src/runtime/task-folders.js';

describe('projectRootOf', () => {
  it('a state folder inside .raymond belongs to the folder holding .raymond, serve-state included', () => {
    assert.equal(projectRootOf('/p/.raymond/state/r.json'), '/p');
    assert.equal(projectRootOf('/p/.raymond/serve-state/r.json'), '/p');
  });

  it('a folder named state belongs to the folder holding its parent; any other to the folder holding it', () => {
    assert.equal(projectRootOf('/p/runs/state/r.json'), '/p');
    assert.equal(projectRootOf('/p/st/r.json'), '/p');
  });
});
