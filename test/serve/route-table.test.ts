import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../src/serve/http-error.js';
import { findRoute, matchPath } from '../../src/serve/route-table.js';

describe('route table', () => {
  it('matches parameters, and {path} takes the rest decoded', () => {
    assert.deepEqual(matchPath('/runs/{id}', '/runs/a-1'), { id: 'a-1' });
    assert.equal(matchPath('/runs/{id}', '/runs/a/b'), undefined);
    assert.equal(matchPath('/runs/{id}', '/runs/'), undefined);
    assert.deepEqual(matchPath('/x/{id}/files/{path}', '/x/r/files/a%2F..%2Fb'), {
      id: 'r',
      path: 'a/../b',
    });
  });

  it('answers 405 for a known path with another method, 404 for an unknown one', () => {
    assert.equal(findRoute('GET', '/workflows').route.path, '/workflows');
    assert.throws(
      () => findRoute('DELETE', '/workflows'),
      (e: unknown) => e instanceof HttpError && e.status === 405,
    );
    assert.throws(
      () => findRoute('GET', '/nope'),
      (e: unknown) => e instanceof HttpError && e.status === 404,
    );
  });
});
