import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { alive } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/notify-receiver.js';
import { waitUntil } from '../helpers/processes.js';
import type { Notification } from '../../src/notify/notification.js';
import { createNotifier, type NotifierOptions } from '../../src/notify/notifier.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-notify-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// Closed however a test ends: an open server would keep the test file from ending.
const servers: Receiver[] = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const server = await startReceiver(...args);
  servers.push(server);
  return server;
}

/** A hook command: records its argv, stdin and RAYMOND_EVENT under `out`, numbered by call, and exits with `code`. */
function hookScript(name: string, code = 0): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      'out="$1"',
      'n=$(cat "$out.count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$out.count"',
      'printf "%s\\n" "$@" > "$out.argv.$n"',
      'cat > "$out.stdin.$n"',
      'printf "%s" "$RAYMOND_EVENT" > "$out.env.$n"',
      `exit ${code}`,
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

const note = (run_id: string): Notification => ({
  event: 'run.completed',
  at: '2025-01-02T03:04:05.000Z',
  run_id,
  workflow: 'wf',
  status: 'completed',
  total_cost_usd: 0,
  results: { main: 'ok' },
});

function notifier(opts: Partial<NotifierOptions>) {
  const warnings: string[] = [];
  const n = createNotifier({
    commands: [],
    urls: [],
    warn: (line) => warnings.push(line),
    retry: { delaysMs: [0, 0] },
    ...opts,
  });
  return { n, warnings };
}

// Bounds here are generous for a loaded machine: each test asserts what happened, never how long it took.
describe('createNotifier: delivering notifications to hooks', () => {
  it('POSTs the JSON to a URL and runs a command without a shell, the JSON on its stdin and in RAYMOND_EVENT', async () => {
    const server = await receiver(() => 200);
    const out = join(dir, 'ok');
    const { n, warnings } = notifier({
      commands: [[hookScript('ok.sh'), out, '$HOME', '*']],
      urls: [`${server.url}/hook`],
    });
    n.send(note('r1'));
    await n.close();
    await server.close();
    assert.deepEqual(warnings, []);
    assert.deepEqual(server.requests, ['/hook']);
    assert.deepEqual(JSON.parse(server.bodies[0]!), note('r1'));
    assert.equal(server.types[0], 'application/json');
    assert.deepEqual(JSON.parse(readFileSync(`${out}.stdin.1`, 'utf8')), note('r1'));
    assert.deepEqual(JSON.parse(readFileSync(`${out}.env.1`, 'utf8')), note('r1'));
    assert.equal(readFileSync(`${out}.argv.1`, 'utf8'), `${out}\n$HOME\n*\n`);
  });

  it('tries a failed POST again and delivers it once', async () => {
    const server = await receiver((i) => (i === 1 ? 500 : 200));
    const { n, warnings } = notifier({ urls: [`${server.url}/hook`] });
    n.send(note('r2'));
    await n.close();
    await server.close();
    assert.equal(server.bodies.length, 2);
    assert.deepEqual(warnings, []);
  });

  it('gives up after three attempts with one warning line naming the hook and the reason', async () => {
    const server = await receiver(() => 500);
    const { n, warnings } = notifier({ urls: [`${server.url}/hook?token=secret`] });
    n.send(note('r3'));
    await n.close();
    await server.close();
    assert.equal(server.bodies.length, 3);
    assert.deepEqual(warnings, [
      `notify: POST ${server.url}/hook?...: 500 Internal Server Error after 3 attempts`,
    ]);
  });

  it('a command that exits 1 is run three times and reported once; one that cannot start is reported too', async () => {
    const out = join(dir, 'fail');
    const script = hookScript('fail.sh', 1);
    const { n, warnings } = notifier({ commands: [[script, out], [join(dir, 'missing-hook')]] });
    n.send(note('r4'));
    await n.close();
    assert.equal(readFileSync(`${out}.count`, 'utf8').trim(), '3');
    assert.deepEqual(
      warnings.sort(),
      [
        `notify: ${script} ${out}: exit code 1 after 3 attempts`,
        `notify: ${join(dir, 'missing-hook')}: could not start (ENOENT) after 3 attempts`,
      ].sort(),
    );
  });

  it('delivers to one hook in order: a notification waits for the retries of the one before', async () => {
    const server = await receiver((i) => (i < 3 ? 503 : 200));
    const { n, warnings } = notifier({ urls: [`${server.url}/hook`] });
    n.send(note('first'));
    n.send(note('second'));
    n.send(note('third'));
    await n.close();
    await server.close();
    assert.deepEqual(
      server.bodies.map((b) => (JSON.parse(b) as Notification).run_id),
      ['first', 'first', 'first', 'second', 'third'],
    );
    assert.deepEqual(warnings, []);
  });

  it('kills a command running past its time, with the processes it started', async () => {
    const pidFile = join(dir, 'slow.pid');
    const { n, warnings } = notifier({
      commands: [['sh', '-c', `sleep 30 & echo $! > ${pidFile}; wait`]],
      retry: { delaysMs: [], timeoutMs: 1500 },
    });
    n.send(note('r5'));
    await n.close();
    assert.deepEqual(warnings, [
      "notify: sh -c 'sleep 30 & echo $! > " +
        pidFile +
        "; wait': killed after running 1.5 s after 1 attempt",
    ]);
    assert.ok(existsSync(pidFile));
    // SIGKILL went to the whole group; the kernel ends the grandchild a moment later.
    await waitUntil(
      () => !alive(Number(readFileSync(pidFile, 'utf8'))),
      "the hook command's child to be killed",
    );
  });

  it('close() waits at most its bound, then gives up on what is still going with one line, leaving nothing running', async () => {
    const server = await receiver(() => null);
    const pidFile = join(dir, 'hang.pid');
    const { n, warnings } = notifier({
      commands: [['sh', '-c', `sleep 30 & echo $! > ${pidFile}; wait`]],
      urls: [`${server.url}/hang`],
      retry: { delaysMs: [0, 0], closeBoundMs: 1500 },
    });
    n.send(note('r6'));
    await n.close();
    await server.close();
    assert.deepEqual(warnings, [
      'notify: gave up on 2 notifications still being delivered after 1.5 s',
    ]);
    assert.equal(server.bodies.length, 1);
    // SIGKILL went to the whole group; the kernel ends the grandchild a moment later.
    await waitUntil(
      () => !alive(Number(readFileSync(pidFile, 'utf8'))),
      "the hook command's child to be killed",
    );
  });
});
