import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SPAWNER_REQUEST } from '../../src/executors/spawner-schemas.js';
import { isSpawnerRequest } from '../../src/executors/spawner-request-check.generated.js';

const FILE = new URL('../../src/executors/spawner-request-check.generated.ts', import.meta.url);

/** The generated file's text: TypeBox's own compiled check of SPAWNER_REQUEST, without TypeBox. */
function generated(): string {
  const code = TypeCompiler.Code(SPAWNER_REQUEST, [], { language: 'javascript' });
  return [
    '// Generated: do not edit. Made from SPAWNER_REQUEST (spawner-schemas.ts) by',
    '// test/executors/spawner-request-check.generated.test.ts, which fails when it differs;',
    '// RAYMOND_WRITE_GENERATED=1 node scripts/run-tests.mjs spawner-request-check writes it again.',
    '// The spawner loads this instead of a schema library, to stay small and start fast.',
    "import type { SpawnerRequest } from './spawner-protocol.js';",
    '',
    '/** Whether a parsed line is a request the spawner understands. */',
    "// eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- TypeBox's checker is generated as the text of a function body",
    'export const isSpawnerRequest = new Function(',
    `  ${JSON.stringify(code)},`,
    ')() as (value: unknown) => value is SpawnerRequest;',
    '',
  ].join('\n');
}

describe('spawner request check', () => {
  it('is the code TypeBox generates from the schema now (regenerate it when the schema changes)', () => {
    if (process.env.RAYMOND_WRITE_GENERATED === '1') writeFileSync(FILE, generated());
    assert.equal(readFileSync(FILE, 'utf8'), generated());
  });

  it('accepts the requests the orchestrator sends and refuses others', () => {
    const run = {
      type: 'run',
      id: 1,
      file: 'sh',
      args: ['-c', 'true'],
      cwd: '/',
      env: { A: 'b', B: null },
      inactivityMs: 0,
      stream: false,
    };
    assert.ok(isSpawnerRequest(run));
    assert.ok(isSpawnerRequest({ ...run, maxOutputBytes: 10, stderrBytes: 5 }));
    assert.ok(isSpawnerRequest({ type: 'kill', id: 1, signal: 'SIGTERM' }));
    for (const bad of [
      null,
      'run',
      [],
      { type: 'stop', id: 1 },
      { ...run, args: 'true' },
      { ...run, env: { A: 1 } },
      { ...run, id: '1' },
      { type: 'kill', id: 1 },
    ]) {
      assert.equal(isSpawnerRequest(bad), false, JSON.stringify(bad));
    }
  });
});
