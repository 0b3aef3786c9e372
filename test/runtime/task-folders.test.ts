import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { projectRootOf } from '../../src/runtime/task-folders.js';

describe('projectRootOf', () => {
  it('a state folder inside .raymond belongs to the folder holding .raymond, serve-state included', () => {
    assert.equal(projectRootOf('/p/.raymond/state/r.json'), '/p');
    assert.equal(projectRootOf('/p/.raymond/serve-state/r.json'), '/p');
  });

  it('any other state folder, one named state included, belongs to the folder holding it', () => {
    assert.equal(projectRootOf('/p/runs/state/r.json'), '/p/runs');
    assert.equal(projectRootOf('/tmp/x/state/r.json'), '/tmp/x');
    assert.equal(projectRootOf('/p/st/r.json'), '/p');
  });

  it('only a parent named exactly .raymond counts', () => {
    assert.equal(projectRootOf('/p/raymond/state/r.json'), '/p/raymond');
    assert.equal(projectRootOf('/p/.raymond-old/state/r.json'), '/p/.raymond-old');
  });
});
