import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import WebSocket from 'ws';
import { CLI, Sandbox, sh } from '../helpers/cli.js';
import { freePort } from '../helpers/browser.js';

const box = new Sandbox();
after(() => box.remove());

/** How a WebSocket handshake ends: the HTTP status of a refusal, or 101 once open. */
function handshake(
  url: string,
  options: WebSocket.ClientOptions,
): Promise<{ status: number; body: string; socket?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.on('open', () => resolve({ status: 101, body: '', socket: ws }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += String(c)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', reject);
  });
}

describe('the --inspect WebSocket relay', () => {
  it("refuses a handshake from another Host or Origin with 403 before upgrading; the page's own origin gets the events", async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>relayed</result>"') }, 'relayed');
    const port = await freePort();
    const run = execa(
      process.execPath,
      [CLI, wf, `--inspect=${port}`, '--inspect-wait', '--workflow-id', 'relayed', '--no-debug'],
      { cwd: box.dir, reject: false, timeout: 60_000 },
    );
    await new Promise<void>((resolve, reject) => {
      let printed = '';
      run.stderr.on(
        'data',
        (c: Buffer) => (printed += String(c)).includes(`localhost:${port}`) && resolve(),
      );
      void run.then(() =>
        reject(new Error(`raymond ended before printing the relay's URL:\n${printed}`)),
      );
    });
    after(() => run.kill('SIGKILL'));
    const url = `ws://127.0.0.1:${port}/`;
    const cases: Array<[WebSocket.ClientOptions, string]> = [
      [{ headers: { host: 'evil.example' }, origin: 'http://evil.example' }, 'ERR_HOST'],
      [{ headers: { host: `evil.example:${port}` } }, 'ERR_HOST'],
      [{ origin: 'http://evil.example' }, 'ERR_ORIGIN'],
      [{ origin: `http://localhost:${port + 1}` }, 'ERR_ORIGIN'],
    ];
    for (const [options, code] of cases) {
      const r = await handshake(url, options);
      r.socket?.close();
      assert.equal(r.status, 403, JSON.stringify(options));
      assert.equal(JSON.parse(r.body).code, code);
    }
    // The bridge page Stately's inspector runs in is served as http://localhost:PORT.
    const viewer = await handshake(url, { origin: `http://localhost:${port}` });
    assert.equal(viewer.status, 101);
    const messages: string[] = [];
    viewer.socket!.on('message', (m: Buffer) => messages.push(m.toString()));
    const r = await run;
    viewer.socket!.close();
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.ok(
      messages.some((m) => m.includes('START.sh')),
      "the viewer got the run's events",
    );
  });
});
