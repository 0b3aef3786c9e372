import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, Sandbox } from '../helpers/cli.js';
import { api, startServe } from '../helpers/serve.js';

const examples = join(ROOT, 'workflows/examples');

describe('raymond serve: security', () => {
  const box = new Sandbox();
  after(() => box.remove());

  it('a non-loopback --host without a token gets one, made and printed once; requests without it are refused', async () => {
    const s = await startServe(['--root', examples, '--host', '0.0.0.0'], box.dir, {
      RAYMOND_SERVE_TOKEN: '',
    });
    const url = s.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const lines = s
        .stderr()
        .split('\n')
        .filter((l) => l.includes('token (shown once'));
      assert.equal(lines.length, 1, s.stderr());
      const token = /: (\S+)$/.exec(lines[0]!)![1]!;
      assert.ok(token.length >= 32, token);
      assert.equal((await api(`${url}/workflows`)).status, 401);
      assert.equal(
        (await api(`${url}/workflows`, 'GET', undefined, { Authorization: `Bearer ${token}` }))
          .status,
        200,
      );
    } finally {
      await s.stop();
    }
  });

  it('with a token, refuses requests without it (401), takes the bearer and the login cookie', async () => {
    const s = await startServe(['--root', examples, '--host', '0.0.0.0'], box.dir, {
      RAYMOND_SERVE_TOKEN: 's3cret',
    });
    const url = s.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const no = await api(`${url}/workflows`);
      assert.equal(no.status, 401);
      assert.equal(no.body.code, 'unauthorized');
      assert.equal(
        (await api(`${url}/workflows`, 'GET', undefined, { Authorization: 'Bearer wrong' })).status,
        401,
      );
      assert.equal(
        (await api(`${url}/workflows`, 'GET', undefined, { Authorization: 'Bearer s3cret' }))
          .status,
        200,
      );
      const login = await fetch(`${url}/login`, {
        method: 'POST',
        body: new URLSearchParams({ token: 's3cret' }),
        redirect: 'manual',
      });
      assert.equal(login.status, 303);
      const cookie = login.headers.get('set-cookie')!;
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      assert.equal(
        (await api(`${url}/workflows`, 'GET', undefined, { Cookie: cookie.split(';')[0]! })).status,
        200,
      );
      assert.equal(
        (
          await fetch(`${url}/login`, {
            method: 'POST',
            body: new URLSearchParams({ token: 'nope' }),
            redirect: 'manual',
          })
        ).status,
        401,
      );
    } finally {
      await s.stop();
    }
  });

  it('a login cookie whose escapes do not decode is a 401, not an internal error', async () => {
    const s = await startServe(['--root', examples, '--host', '0.0.0.0'], box.dir, {
      RAYMOND_SERVE_TOKEN: 's3cret',
    });
    const url = s.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const bad = await api(`${url}/workflows`, 'GET', undefined, {
        Cookie: 'raymond_token=%E0%A4%A',
      });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.code, 'unauthorized');
      // The page shows its login form for it.
      const page = await fetch(`${url}/`, { headers: { Cookie: 'raymond_token=%E0%A4%A' } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /name="token"/);
      assert.doesNotMatch(s.stderr(), /internal error/);
    } finally {
      await s.stop();
    }
  });

  it('refuses a cross-origin request that changes something, and a Host that is not loopback', async () => {
    const s = await startServe(['--root', examples], box.dir);
    try {
      const cross = await api(
        `${s.url}/runs`,
        'POST',
        { workflow_id: 'approval', input: 'x' },
        { Origin: 'https://evil.example' },
      );
      assert.equal(cross.status, 403);
      assert.equal(cross.body.code, 'cross_origin');
      assert.deepEqual((await api(`${s.url}/runs`)).body, []);
      const same = await api(
        `${s.url}/runs`,
        'POST',
        { workflow_id: 'approval', input: 'x' },
        { Origin: s.url },
      );
      assert.equal(same.status, 201);
      // fetch cannot set Host: a plain request can, as a rebound DNS name would.
      const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const r = request(`${s.url}/workflows`, { headers: { Host: 'evil.example' } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        r.on('error', reject);
        r.end();
      });
      assert.equal(rebound.status, 403);
      assert.equal(JSON.parse(rebound.body).code, 'bad_host');
    } finally {
      await s.stop();
    }
  });

  it('refuses a working_directory outside --workdir', async () => {
    const work = box.write({ 'inside/.keep': '' }, 'work');
    const s = await startServe(['--root', examples, '--workdir', work], box.dir);
    try {
      const out = await api(`${s.url}/runs`, 'POST', {
        workflow_id: 'approval',
        input: 'x',
        working_directory: '/tmp',
      });
      assert.equal(out.status, 403);
      assert.equal(out.body.code, 'workdir_outside');
      const escape = await api(`${s.url}/runs`, 'POST', {
        workflow_id: 'approval',
        input: 'x',
        working_directory: '../..',
      });
      assert.equal(escape.body.code, 'workdir_outside');
      assert.equal(
        (
          await api(`${s.url}/runs`, 'POST', {
            workflow_id: 'approval',
            input: 'x',
            working_directory: 'inside',
          })
        ).status,
        201,
      );
    } finally {
      await s.stop();
    }
  });
});
