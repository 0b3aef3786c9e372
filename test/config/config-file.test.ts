import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { configTemplate, findConfigFile, readConfig } from '../../src/config/config-file.js';
import { RaymondError, formatError } from '../../src/errors.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-config-'));
after(() => rmSync(root, { recursive: true, force: true }));

function file(text: string): string {
  const dir = mkdtempSync(join(root, 'c-'));
  mkdirSync(join(dir, '.raymond'));
  writeFileSync(join(dir, '.raymond', 'config.toml'), text);
  return join(dir, '.raymond', 'config.toml');
}

function refused(text: string): string {
  const path = file(text);
  try {
    readConfig(path);
  } catch (err) {
    assert.ok(err instanceof RaymondError && err.code === 'ERR_CONFIG');
    assert.equal(err.file, path);
    return formatError(err);
  }
  assert.fail(`accepted: ${text}`);
}

describe('config file', () => {
  it('reads the [raymond] table', () => {
    assert.deepEqual(
      readConfig(
        file('[raymond]\nbudget = 2.5\nmodel = "haiku"\nmax_parallel = 3\nno_debug = true\n'),
      ).values,
      { budget: 2.5, model: 'haiku', max_parallel: 3, no_debug: true },
    );
  });

  it('names the file, the key and what was expected', () => {
    assert.match(
      refused('[raymond]\ntimeout = -1\n'),
      /config\.toml: raymond\.timeout = -1: expected a number of seconds, 0 or more \(0: never\)$/,
    );
    assert.match(refused('[raymond\n'), /not valid TOML: /);
  });

  it("warns about keys neither Raymond nor ray knows, and takes ray's own quietly", () => {
    const { values, warnings } = readConfig(
      file(
        'budget = 3\n[raymond]\nmodle = "opus"\nname = "n"\nverbose = true\ntimeout = 1.5\n[raymond.serve]\nport = 1\n',
      ),
    );
    assert.deepEqual(values, { name: 'n', verbose: true, timeout: 1.5 });
    assert.deepEqual(
      warnings.map((w) => w.split(',')[0]),
      ['unknown section or key "budget"', 'unknown key raymond.modle'],
    );
  });

  it('reads [raymond.serve] for raymond serve: checked like the rest, unknown keys warned about by the server only', () => {
    const { serve, warnings, serveWarnings } = readConfig(
      file(
        '[raymond.serve]\nroots = ["flows"]\nport = 9090\nhost = "0.0.0.0"\nlaunch = ["a"]\nupload_max_count = 3\nportt = 1\n',
      ),
    );
    assert.deepEqual(serve, {
      roots: ['flows'],
      port: 9090,
      host: '0.0.0.0',
      launch: ['a'],
      upload_max_count: 3,
    });
    assert.deepEqual(warnings, [], "a run says nothing about the server's keys");
    assert.deepEqual(
      serveWarnings.map((w) => w.split(',')[0]),
      ['unknown key raymond.serve.portt'],
    );
    assert.match(
      refused('[raymond.serve]\nport = 70000\n'),
      /raymond\.serve\.port = 70000: expected a port number, 1 to 65535/,
    );
    assert.match(
      refused('[raymond]\nserve = 3\n'),
      /raymond\.serve = 3: expected the table \[raymond\.serve\]/,
    );
  });

  it('refuses a malformed value of each [raymond.serve] key by its schema, with the line that key has always had', () => {
    const cases: [string, RegExp][] = [
      [
        'roots = ["flows", ""]',
        /raymond\.serve\.roots = \["flows",""\]: expected a list of folders$/,
      ],
      ['port = 0', /raymond\.serve\.port = 0: expected a port number, 1 to 65535$/],
      ['host = ""', /raymond\.serve\.host = "": expected a host name or address$/],
      ['workdir = 3', /raymond\.serve\.workdir = 3: expected a folder$/],
      ['launch = "a"', /raymond\.serve\.launch = "a": expected a list of workflow ids$/],
      [
        'upload_max_size = 0',
        /raymond\.serve\.upload_max_size = 0: expected a number of bytes, 1 or more$/,
      ],
      [
        'upload_max_total_size = 1.5',
        /raymond\.serve\.upload_max_total_size = 1.5: expected a number of bytes, 1 or more$/,
      ],
      [
        'upload_max_count = true',
        /raymond\.serve\.upload_max_count = true: expected a whole number, 1 or more$/,
      ],
      [
        'request_timeout = -5',
        /raymond\.serve\.request_timeout = -5: expected a number of seconds, 1 or more$/,
      ],
      [
        'mcp_wait = 2.5',
        /raymond\.serve\.mcp_wait = 2.5: expected a number of seconds, 0 or more$/,
      ],
    ];
    for (const [line, message] of cases)
      assert.match(refused(`[raymond.serve]\n${line}\n`), message);
    assert.deepEqual(
      readConfig(file('[raymond.serve]\nworkdir = "runs"\nrequest_timeout = 30\nmcp_wait = 0\n'))
        .serve,
      { workdir: 'runs', request_timeout: 30, mcp_wait: 0 },
    );
  });

  it('is found walking up from a subfolder, but not past the git root', () => {
    const path = file('[raymond]\n');
    const project = join(path, '..', '..');
    mkdirSync(join(project, 'a', 'b'), { recursive: true });
    assert.equal(findConfigFile(join(project, 'a', 'b')), path);
    mkdirSync(join(project, 'a', '.git'));
    assert.equal(findConfigFile(join(project, 'a', 'b')), undefined);
  });

  it('takes notify as a command line, an argv or several commands, and notify_url as one URL or several; bad quoting or a non-http URL is refused', () => {
    assert.deepEqual(
      readConfig(
        file('[raymond]\nnotify = "notify-send \'a run\'"\nnotify_url = "https://example.com/h"\n'),
      ).values,
      { notify: "notify-send 'a run'", notify_url: 'https://example.com/h' },
    );
    assert.deepEqual(
      readConfig(
        file('[raymond]\nnotify = [["a", "b"], "c d"]\nnotify_url = ["http://127.0.0.1:1/x"]\n'),
      ).values,
      { notify: [['a', 'b'], 'c d'], notify_url: ['http://127.0.0.1:1/x'] },
    );
    assert.match(
      refused('[raymond]\nnotify = "echo \'oops"\n'),
      /config\.toml: raymond\.notify = "echo 'oops": the command has an unterminated single quote$/,
    );
    assert.match(
      refused('[raymond]\nnotify = 3\n'),
      /raymond\.notify = 3: expected a command line, an argv array of strings, or a list of those$/,
    );
    assert.match(
      refused('[raymond]\nnotify_url = ["https://a.example", "file:///etc/passwd"]\n'),
      /raymond\.notify_url = .*: "file:\/\/\/etc\/passwd" is not an http:\/\/ or https:\/\/ URL: it is a file: URL$/,
    );
  });

  it('the template documents every key, notify and notify_url included', () => {
    assert.match(configTemplate(), /^# notify = \["notify-send", "Raymond"\]$/m);
    assert.match(configTemplate(), /^# notify_url = "https:\/\/example\.com\/hooks\/raymond"$/m);
  });

  it('the template parses to nothing set', () => {
    assert.deepEqual(readConfig(file(configTemplate())), {
      values: {},
      serve: {},
      queue: {},
      prices: {},
      warnings: [],
      serveWarnings: [],
    });
  });
});
