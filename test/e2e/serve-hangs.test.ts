import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';
import { api, readEvents, startServe, until } from '../helpers/serve.js';

const examples = join(ROOT, 'workflows/examples');

/**
 * A POST whose body trickles in, a byte every 500 ms, at most `bytes` of
 * them: resolves with what the server answered and whether it closed the
 * connection before the client ran out of bytes.
 */
function trickle(url: string, bytes: number): Promise<{ closed: boolean; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closed: sent < bytes, answer });
    });
    socket.write(
      `POST /runs HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${bytes + 10}\r\n\r\n{`,
    );
    timer = setInterval(() => {
      if (sent++ < bytes) socket.write(' ');
      else socket.destroy();
    }, 500);
  });
}

describe('raymond serve: hangs', () => {
  const box = new Sandbox();
  after(() => box.remove());

  it(
    'a FIFO under --root is one warning line at start and at each rescan; the server starts, rescans and runs',
    { timeout: 120_000 },
    async () => {
      const root = box.write(
        {
          'ok/START.sh': sh('echo "<result>ok</result>"'),
          'pkg/states/START.sh': sh('echo "<result>x</result>"'),
        },
        'fifo-root',
      );
      execFileSync('mkfifo', [join(root, 'x.yaml'), join(root, 'pkg/workflow.yaml')]);
      const s = await startServe(['--root', root], box.dir);
      try {
        const lines = s.stderr().split('\n');
        assert.equal(
          lines.filter((l) =>
            l.includes('x.yaml: not served: x.yaml is not a regular file (a FIFO)'),
          ).length,
          1,
          s.stderr(),
        );
        assert.equal(
          lines.filter((l) =>
            l.includes(
              `${join(root, 'pkg')}: not served: workflow.yaml is not a regular file (a FIFO)`,
            ),
          ).length,
          1,
          s.stderr(),
        );
        // A FIFO added later: more rescans than libuv has threads, then a run still starts and ends.
        execFileSync('mkfifo', [join(root, 'later.yaml')]);
        for (let i = 0; i < 6; i++) {
          const r = await api(`${s.url}/workflows/rescan`, 'POST');
          assert.equal(r.status, 200);
          assert.deepEqual(
            r.body.map((w: { id: string }) => w.id),
            ['ok'],
          );
        }
        assert.equal(
          s
            .stderr()
            .split('\n')
            .filter((l) => l.includes('later.yaml is not a regular file (a FIFO)')).length,
          6,
        );
        const id = (await api(`${s.url}/runs`, 'POST', { workflow_id: 'ok' })).body
          .run_id as string;
        const done = await until(async () => {
          const r = await api(`${s.url}/runs/${id}`);
          return r.body.status === 'completed' ? r.body : undefined;
        }, 'the run');
        assert.equal(done.result, 'ok');
      } finally {
        assert.equal(await s.stop(), 0);
      }
    },
  );

  it(
    '50 requests whose bodies trickle in are answered 408 and closed at request_timeout; an event stream outlives it',
    { timeout: 120_000 },
    async () => {
      const project = new Sandbox();
      try {
        project.write({ '.raymond/config.toml': '[raymond.serve]\nrequest_timeout = 2\n' });
        const s = await startServe(['--root', examples], project.dir);
        try {
          assert.doesNotMatch(s.stderr(), /warning/);
          const id = (await api(`${s.url}/runs`, 'POST', { workflow_id: 'approval', input: 'x' }))
            .body.run_id as string;
          const askId = await until(
            async () =>
              (await api(`${s.url}/runs/${id}/pending-asks`)).body[0]?.ask_id as string | undefined,
            'the ask',
          );
          const stream = readEvents(`${s.url}/runs/${id}/output`);
          // Each client has 40 bytes, 20 s of trickling: far beyond the 2 s the server gives a request.
          const slow = await Promise.all(Array.from({ length: 50 }, () => trickle(s.url, 40)));
          assert.deepEqual(
            slow.filter((c) => !c.closed),
            [],
            'every slow connection was closed by the server',
          );
          for (const c of slow) assert.match(c.answer, /^HTTP\/1\.1 408 /);
          // The stream opened before them is still there: it gets the run's end.
          assert.equal(
            (await api(`${s.url}/runs/${id}/asks/${askId}`, 'POST', { response: 'approve' }))
              .status,
            200,
          );
          const events = await stream;
          assert.equal(events.at(-1)!.data.type, 'workflow_completed');
        } finally {
          assert.equal(await s.stop(), 0);
        }
      } finally {
        project.remove();
      }
    },
  );
});
