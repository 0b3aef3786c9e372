import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { spawnerReply } from '../../src/executors/spawner-schemas.js';

const MAIN = fileURLToPath(new URL('../../src/executors/spawner.main.ts', import.meta.url));

describe('spawner reply schema', () => {
  it('accepts the replies a spawner sends', () => {
    assert.ok(spawnerReply.check({ type: 'ready', pid: 1 }));
    assert.ok(spawnerReply.check({ type: 'chunk', id: 1, stream: 'stderr', text: 'x' }));
    assert.ok(
      spawnerReply.check({
        type: 'exit',
        id: 1,
        exitCode: null,
        signal: 'SIGKILL',
        stdout: '',
        stderrTail: '',
        timedOut: true,
        droppedBytes: 0,
        leftRunning: [],
        cpuMs: 0,
      }),
    );
  });

  it('names the wrong field of a malformed reply, by its type', () => {
    const cases: Array<[unknown, string]> = [
      [
        {
          type: 'exit',
          id: 1,
          exitCode: '0',
          signal: null,
          stdout: '',
          stderrTail: '',
          timedOut: false,
          droppedBytes: 0,
          leftRunning: [],
          cpuMs: 0,
        },
        'exitCode is "0"; it must be a number or null',
      ],
      [{ type: 'started', id: 1 }, 'pid is missing; it must be a number'],
      [
        { type: 'chunk', id: 1, stream: 'stdin', text: '' },
        'stream is "stdin"; it must be one of stdout, stderr',
      ],
      [
        { type: 'hello' },
        'the reply is {"type":"hello"}; it must be a reply (ready, started, chunk, output or exit)',
      ],
      [7, 'the reply is 7; it must be a reply (ready, started, chunk, output or exit)'],
    ];
    for (const [reply, problem] of cases)
      assert.equal(spawnerReply.problem(reply, 'the reply'), problem);
  });
});

describe('spawner process: malformed requests', () => {
  it('ignores a request that is not JSON or not of the protocol with one line on stderr, and goes on', async () => {
    const child = execa(process.execPath, ['--import', 'tsx', MAIN], {
      stdin: 'pipe',
      reject: false,
      timeout: 20_000,
    });
    const run = {
      type: 'run',
      id: 1,
      file: 'sh',
      args: ['-c', 'echo ok'],
      cwd: '/',
      env: {},
      inactivityMs: 10_000,
      stream: false,
    };
    child.stdin.write('not json\n');
    child.stdin.write('{"type":"run","id":"1"}\n');
    child.stdin.write(`${JSON.stringify(run)}\n`);
    let out = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('"type":"exit"')) resolve();
      });
    });
    child.stdin.end();
    const result = await child;
    assert.equal(
      result.stderr,
      [
        'raymond spawner: ignoring a request that is not JSON: not json',
        'raymond spawner: ignoring a request that is not a run or a kill of the protocol: {"type":"run","id":"1"}',
      ].join('\n'),
    );
    const exit = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; stdout?: string })
      .find((m) => m.type === 'exit');
    assert.equal(exit?.stdout, 'ok\n');
  });
});
