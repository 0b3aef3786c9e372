import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StoredAgent } from '../../machines/types.js';
import { RaymondError } from '../../src/errors.js';
import { openScope, type Scope } from '../../src/scope/scope.js';
import { ScopeSet } from '../../src/scope/scope-set.js';
import { checkStoredStates } from '../../src/runtime/stored-states.js';

const agent = (fields: Partial<StoredAgent>): StoredAgent => ({
  id: 'main',
  state: 'START.sh',
  session: null,
  branchFrom: null,
  stack: [],
  cwd: '/w',
  attributes: {},
  input: null,
  status: 'active',
  ...fields,
});

describe('checkStoredStates', () => {
  let dir: string;
  let scope: Scope;
  let scopes: ScopeSet;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-stored-'));
    for (const f of ['START.sh', 'BACK.sh']) writeFileSync(join(dir, f), '#!/bin/sh\n');
    scope = await openScope(dir);
    scopes = new ScopeSet(scope);
  });
  after(async () => {
    await scope.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const damaged = (pattern: RegExp) => (err: unknown) =>
    err instanceof RaymondError &&
    err.code === 'ERR_STATE_FILE' &&
    err.file === '/s/r.json' &&
    pattern.test(err.message);

  it('accepts live agents whose states and return frames are state files of the workflow; ended agents are not looked at', () => {
    assert.doesNotThrow(() =>
      checkStoredStates(
        [
          agent({ stack: [{ state: 'BACK.sh', session: null }] }),
          agent({ id: 'old', status: 'terminated', state: '../gone.sh' }),
        ],
        scopes,
        '/s/r.json',
        'r',
      ),
    );
  });

  it("refuses a state outside the workflow, and a name that is not the state file's own", () => {
    assert.throws(
      () =>
        checkStoredStates([agent({ state: '../../elsewhere/evil.sh' })], scopes, '/s/r.json', 'r'),
      damaged(
        /^agent main's state "\.\.\/\.\.\/elsewhere\/evil\.sh" is not a state of run r's workflow/,
      ),
    );
    assert.throws(
      () => checkStoredStates([agent({ state: 'START' })], scopes, '/s/r.json', 'r'),
      damaged(/is not a state file name of run r's workflow \(it would be START\.sh\)/),
    );
    assert.throws(
      () =>
        checkStoredStates(
          [agent({ status: 'paused', stack: [{ state: 'NOPE.sh', session: null }] })],
          scopes,
          '/s/r.json',
          'r',
        ),
      damaged(/^agent main's stack frame 1 "NOPE\.sh"/),
    );
  });
});
