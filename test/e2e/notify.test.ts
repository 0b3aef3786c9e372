import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox, raymond, sh } from '../helpers/cli.js';
import { startReceiver as start, type Receiver } from '../helpers/notify-receiver.js';
import type { Notification } from '../../src/notify/notification.js';

const box = new Sandbox();
after(() => box.remove());
// Closed however a test ends: an open server would keep the test file from ending.
const servers: Receiver[] = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function startReceiver(...args: Parameters<typeof start>): Promise<Receiver> {
  const server = await start(...args);
  servers.push(server);
  return server;
}

/** A hook command: appends its stdin, RAYMOND_EVENT and arguments (one JSON line each) to the file its first argument names. */
const hook = box.write(
  {
    'hook.sh': sh(
      'out="$1"; shift',
      'cat >> "$out"; echo >> "$out"',
      'printf "%s\\n" "$RAYMOND_EVENT" >> "$out"',
      'printf "%s|" "$@" >> "$out"; echo >> "$out"',
    ),
  },
  'hooks',
);
const hookScript = join(hook, 'hook.sh');

/** What the hook command wrote: stdin, the variable and the arguments of each call. */
function hookCalls(file: string): Array<{ stdin: Notification; env: Notification; args: string }> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const calls = [];
  for (let i = 0; i + 2 < lines.length; i += 3)
    calls.push({
      stdin: JSON.parse(lines[i]!) as Notification,
      env: JSON.parse(lines[i + 1]!) as Notification,
      args: lines[i + 2]!,
    });
  return calls;
}

const parsed = (bodies: string[]) => bodies.map((b) => JSON.parse(b) as Notification);

describe('--notify and --notify-url: hooks told how a run ended', () => {
  it('a completed run: the URL gets one run.completed POST and the command one call, with the JSON on stdin and in RAYMOND_EVENT', async () => {
    const server = await startReceiver();
    const wf = box.write({ 'START.sh': sh('echo "<result>all done</result>"') }, 'tour');
    const out = join(box.dir, 'calls one.txt');
    const r = await box.run([
      wf,
      '--workflow-id',
      'nt1',
      '--name',
      'nightly',
      '--notify-url',
      `${server.url}/hook`,
      '--notify',
      `${hookScript} '${out}' "two words" $HOME ~ *`,
    ]);
    await server.close();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'all done\n');
    assert.deepEqual(server.requests, ['/hook']);
    assert.equal(server.types[0], 'application/json');
    const [n] = parsed(server.bodies);
    assert.deepEqual(
      { ...n, at: undefined },
      {
        event: 'run.completed',
        at: undefined,
        run_id: 'nt1',
        workflow: 'tour',
        name: 'nightly',
        status: 'completed',
        total_cost_usd: 0,
        results: { main: 'all done' },
      },
    );
    assert.ok(!Number.isNaN(Date.parse(n!.at)));
    const calls = hookCalls(out);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]!.stdin, n);
    assert.deepEqual(calls[0]!.env, n);
    // No shell: nothing expanded.
    assert.equal(calls[0]!.args, 'two words|$HOME|~|*|');
    assert.doesNotMatch(r.stderr, /warning/);
  });

  it('a failed run sends run.failed with the error and the command that resumes it; the resumed run sends run.completed', async () => {
    const server = await startReceiver();
    const wf = box.write(
      {
        'START.sh': sh(
          '[ -f "$RAYMOND_WORKFLOW_ID.ok" ] || { echo "no flag" >&2; exit 3; }',
          'echo "<result>second time</result>"',
        ),
      },
      'flaky',
    );
    // A state folder two levels down: task folders go beside it, under runs/.raymond (see projectRootOf).
    const failed = await box.run([
      wf,
      '--workflow-id',
      'nt2',
      '--state-dir',
      'runs/state',
      '--notify-url',
      `${server.url}/a`,
    ]);
    assert.equal(failed.code, 1, failed.stderr);
    const [f] = parsed(server.bodies);
    assert.equal(f!.event, 'run.failed');
    assert.equal(f!.status, 'failed');
    assert.match(f!.error ?? '', /START\.sh: exited with code 3/);
    assert.equal(f!.resume, 'raymond --resume nt2 --state-dir runs/state');
    assert.equal(f!.results, undefined);
    writeFileSync(join(box.dir, 'nt2.ok'), '');
    const resumed = await box.run([
      '--resume',
      'nt2',
      '--state-dir',
      'runs/state',
      '--notify-url',
      `${server.url}/b`,
    ]);
    await server.close();
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(server.requests, ['/a', '/b']);
    const [, c] = parsed(server.bodies);
    assert.equal(c!.event, 'run.completed');
    assert.equal(c!.workflow, 'flaky');
    assert.deepEqual(c!.results, { main: 'second time' });
  });

  it('a hook that keeps failing is one warning line on stderr, and the run still exits 0', async () => {
    const server = await startReceiver(() => 500);
    const wf = box.write({ 'START.sh': sh('echo "<result>ok</result>"') }, 'ignored');
    const r = await box.run([
      wf,
      '--workflow-id',
      'nt3',
      '--quiet',
      '--notify-url',
      `${server.url}/down`,
    ]);
    await server.close();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ok\n');
    assert.equal(server.bodies.length, 3);
    assert.equal(
      r.stderr,
      `warning: notify: POST ${server.url}/down: 500 Internal Server Error after 3 attempts\n`,
    );
  });

  it('a URL with user:pass@ is delivered with a Basic Authorization header; a failure warns without the password or the query', async () => {
    const server = await startReceiver();
    const wf = box.write({ 'START.sh': sh('echo "<result>ok</result>"') }, 'credentials');
    const withAuth =
      server.url.replace('http://', 'http://hook%20user:s3cr%3At@') + '/in?token=t0ps3cret';
    const r = await box.run([wf, '--workflow-id', 'nt-auth', '--quiet', '--notify-url', withAuth]);
    await server.close();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(server.requests, ['/in?token=t0ps3cret']);
    assert.deepEqual(server.authorizations, [
      `Basic ${Buffer.from('hook user:s3cr:t').toString('base64')}`,
    ]);

    const down = await startReceiver(() => 503);
    const failing = down.url.replace('http://', 'http://hook:s3cret@') + '/in?token=t0ps3cret';
    const f = await box.run([wf, '--workflow-id', 'nt-auth2', '--quiet', '--notify-url', failing]);
    await down.close();
    assert.equal(f.code, 0, f.stderr);
    assert.equal(
      f.stderr,
      `warning: notify: POST ${down.url}/in?...: 503 Service Unavailable after 3 attempts\n`,
    );
    const gone = await startReceiver();
    await gone.close();
    const unreachable = gone.url.replace('http://', 'http://hook:s3cret@') + '/in?token=t0ps3cret';
    const g = await box.run([
      wf,
      '--workflow-id',
      'nt-auth3',
      '--quiet',
      '--notify-url',
      unreachable,
    ]);
    assert.equal(g.code, 0, g.stderr);
    assert.equal(
      g.stderr,
      `warning: notify: POST ${gone.url}/in?...: ECONNREFUSED after 3 attempts\n`,
    );
  });

  it('goes through the proxy HTTP_PROXY names', async () => {
    const proxy = await startReceiver();
    const wf = box.write({ 'START.sh': sh('echo "<result>ok</result>"') }, 'proxied');
    const r = await box.run(
      [
        wf,
        '--workflow-id',
        'nt-proxy',
        '--quiet',
        '--notify-url',
        'http://user:pw@hooks.invalid/raymond',
      ],
      { HTTP_PROXY: proxy.url },
    );
    await proxy.close();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.deepEqual(proxy.requests, ['http://hooks.invalid/raymond']);
    assert.deepEqual(proxy.authorizations, [`Basic ${Buffer.from('user:pw').toString('base64')}`]);
    assert.equal(parsed(proxy.bodies)[0]!.run_id, 'nt-proxy');
  });

  it('takes notify and notify_url from the config file; a flag replaces the config list of its kind only', async () => {
    const fromConfig = await startReceiver();
    const fromFlag = await startReceiver();
    const project = join(box.dir, 'configured');
    mkdirSync(join(project, '.raymond'), { recursive: true });
    const out = join(project, 'calls.txt');
    writeFileSync(
      join(project, '.raymond/config.toml'),
      `[raymond]\nnotify = ["${hookScript}", "${out}", "$HOME"]\nnotify_url = "${fromConfig.url}/config"\n`,
    );
    const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'configured/wf');
    const first = await raymond([wf, '--workflow-id', 'nt4'], { cwd: project });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(fromConfig.requests, ['/config']);
    assert.equal(hookCalls(out)[0]!.args, '$HOME|');
    const second = await raymond(
      [wf, '--workflow-id', 'nt5', '--notify-url', `${fromFlag.url}/flag`],
      { cwd: project },
    );
    await fromConfig.close();
    await fromFlag.close();
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(fromConfig.requests, ['/config']);
    assert.deepEqual(fromFlag.requests, ['/flag']);
    assert.deepEqual(
      hookCalls(out).map((c) => c.stdin.run_id),
      ['nt4', 'nt5'],
    );
  });

  it('a bad URL, bad quoting or a bad config value is one line and exit 64, with nothing run', async () => {
    const marker = join(box.dir, 'ran');
    const wf = box.write(
      { 'START.sh': sh(`touch ${marker}`, 'echo "<result>x</result>"') },
      'never',
    );
    const cases: Array<[string[], RegExp]> = [
      [
        ['--notify-url', 'file:///etc/passwd'],
        /^raymond: option '--notify-url <url>' argument 'file:\/\/\/etc\/passwd' is invalid\. expected an http: or https: URL \(run raymond --help for usage\)$/,
      ],
      [['--notify-url', 'example.com/hook'], /expected an http: or https: URL/],
      [['--notify', `${hookScript} 'oops`], /the command has an unterminated single quote/],
    ];
    for (const [flags, why] of cases) {
      const r = await box.run([wf, '--workflow-id', 'nt-bad', ...flags]);
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr.trim(), why);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const project = join(box.dir, 'badconfig');
    mkdirSync(join(project, '.raymond'), { recursive: true });
    writeFileSync(
      join(project, '.raymond/config.toml'),
      '[raymond]\nnotify_url = "ftp://example.com/x"\n',
    );
    const r = await raymond([wf, '--workflow-id', 'nt-bad'], { cwd: project });
    assert.equal(r.code, 64, r.stderr);
    // The same check as --notify-url's, so the same words.
    assert.match(
      r.stderr,
      /^raymond: .*config\.toml: raymond\.notify_url = "ftp:\/\/example\.com\/x": expected an http: or https: URL\n$/,
    );
    assert.ok(!existsSync(marker));
    assert.ok(!existsSync(join(box.dir, '.raymond/state/nt-bad.json')));
  });

  it('--status and --list send nothing', async () => {
    const server = await startReceiver();
    const list = await box.run(['--list', '--notify-url', `${server.url}/list`]);
    const status = await box.run(['--status', 'nt1', '--notify-url', `${server.url}/status`]);
    await server.close();
    assert.equal(list.code, 0, list.stderr);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(server.requests, []);
  });

  it('a run that asks: ask.created as it asks, then run.asking with every pending ask and the command that answers', async () => {
    const server = await startReceiver();
    const wf = box.write(
      {
        'START.sh': sh('echo "<ask next=\\"DO\\">approve?</ask>"'),
        'DO.sh': sh('echo "<result>done</result>"'),
      },
      'asks',
    );
    const r = await box.run([
      wf,
      '--workflow-id',
      'nt-ask',
      '--on-ask=pause',
      '--notify-url',
      `${server.url}/hook`,
    ]);
    await server.close();
    assert.equal(r.code, 2, r.stderr);
    const [created, asking] = parsed(server.bodies);
    assert.equal(created!.event, 'ask.created');
    assert.deepEqual(
      { ...created!.ask, created_at: undefined },
      { ask_id: created!.ask!.ask_id, agent_id: 'main', prompt: 'approve?', created_at: undefined },
    );
    assert.equal(created!.resume, 'raymond --resume nt-ask --input "[your response]"');
    assert.equal(asking!.event, 'run.asking');
    assert.equal(asking!.status, 'asking');
    assert.deepEqual(
      asking!.asks!.map((a) => a.ask_id),
      [created!.ask!.ask_id],
    );
    assert.equal(server.bodies.length, 2);
  });
});
