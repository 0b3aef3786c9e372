import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  endedSession,
  folderManifest,
  signedJob,
  signedProgress,
  signedResult,
  stepJobEnvelope,
  workerBeatSchema,
} from '../../src/queue/queue-schemas.js';
import { readBeat } from '../../src/queue/worker-registry.js';

const SHA = 'a'.repeat(64);
const envelope = {
  v: 4,
  kind: 'script',
  run: 'r1',
  id: 'main.1',
  nonce: 'n',
  expires: 1,
  root: '/w',
  agent: { id: 'main', state: 'S.sh', cwd: '/w', stack: [] },
  file: '/w/.raymond/state/r1.json',
  where: 'r1.json',
  timeoutMs: 1000,
  env: {},
  pushRemote: 'origin',
  queuedAt: 1,
};
const beat = {
  name: 'w1',
  host: 'h',
  pid: 1,
  concurrency: 2,
  active: 0,
  done: 0,
  failed: 0,
  startedAt: 1,
  beatAt: 2,
};

describe('queue schemas', () => {
  it('accept what the run and its workers write', () => {
    assert.ok(signedJob.check({ payload: '{}', sig: 'ab' }));
    assert.ok(stepJobEnvelope.check(envelope));
    assert.ok(
      signedResult.check({
        for: 'result',
        id: 'main.1',
        nonce: 'n',
        result: { worker: 'w1', cancelled: true },
      }),
    );
    assert.ok(
      signedProgress.check({ for: 'progress', id: 'main.1', nonce: 'n', events: [{ type: 'x' }] }),
    );
    assert.ok(workerBeatSchema.check(beat));
    assert.ok(folderManifest.check({ files: { 'a.sh': { sha: SHA, exec: true } } }));
  });

  it('name the wrong field of a malformed payload in one line', () => {
    const cases: Array<[string | undefined, string]> = [
      [stepJobEnvelope.problem({ ...envelope, v: 1 }, 'the job'), 'v is 1; it must be 4'],
      // A job of the version before (Claude's own `claude` field): refused, never run with its settings lost.
      [stepJobEnvelope.problem({ ...envelope, v: 2 }, 'the job'), 'v is 2; it must be 4'],
      [
        stepJobEnvelope.problem({ ...envelope, kind: 'shell' }, 'the job'),
        'kind is "shell"; it must be one of script, markdown, worktree.finish',
      ],
      [
        stepJobEnvelope.problem({ ...envelope, agent: { id: 'main' } }, 'the job'),
        'agent.state is missing; it must be a string',
      ],
      [
        stepJobEnvelope.problem({ ...envelope, env: { A: 1 } }, 'the job'),
        'env is {"A":1}; it must be an object of strings',
      ],
      [
        signedResult.problem(
          { for: 'result', id: 'main.1', nonce: 'n', result: null },
          'the result',
        ),
        'result must be an object',
      ],
      [signedJob.problem('text', 'the job'), 'the job must be an object'],
      [
        workerBeatSchema.problem({ ...beat, beatAt: '2' }, 'the heartbeat'),
        'beatAt is "2"; it must be a number',
      ],
      [
        folderManifest.problem({ files: { 'a.sh': { sha: 'short', exec: true } } }, 'the manifest'),
        'files is {"a.sh":{"sha":"short","exec":true}}; it must be an object of files',
      ],
    ];
    for (const [got, want] of cases) assert.equal(got, want);
  });
});

describe('readBeat', () => {
  it('reads a heartbeat, and ignores with a warning one that is not JSON or not a heartbeat', () => {
    const warnings: string[] = [];
    const listen = (w: Error) => warnings.push(w.message);
    const emit = process.emitWarning;
    process.emitWarning = (w: string) => listen(new Error(w));
    try {
      assert.deepEqual(readBeat(JSON.stringify(beat)), beat);
      assert.equal(readBeat('{"name": '), undefined);
      assert.equal(readBeat(JSON.stringify({ ...beat, pid: 'one' })), undefined);
    } finally {
      process.emitWarning = emit;
    }
    assert.deepEqual(warnings, [
      'raymond: ignoring a worker heartbeat in Redis raymond:workers that is not JSON: {"name": ',
      'raymond: ignoring a worker heartbeat in Redis raymond:workers: pid is "one"; it must be a number',
    ]);
  });

  it('an ended session names its run and session; anything else is passed over', () => {
    assert.equal(endedSession.check({ run: 'r1', session: 's-1' }), true);
    assert.equal(endedSession.check({ run: 'r1' }), false);
    assert.equal(endedSession.check({ run: 'r1', session: 7 }), false);
  });
});
