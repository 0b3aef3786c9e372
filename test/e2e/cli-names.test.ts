import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT, Sandbox } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Raymond started through a link named `ray`, as the package's `ray` bin starts it. */
async function ray(args: string[]) {
  const link = join(box.dir, 'ray');
  try {
    symlinkSync(CLI, link);
  } catch {
    // Made by an earlier test.
  }
  const r = await execa(link, args, {
    cwd: box.dir,
    reject: false,
    stdin: 'ignore',
    stripFinalNewline: false,
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('-v, --version', () => {
  it('-v prints the version as --version does, exit 0', async () => {
    for (const flag of ['-v', '--version', '-V']) {
      const r = await box.run([flag]);
      assert.equal(r.code, 0, `${flag}: ${r.stderr}`);
      assert.equal(r.stdout, `${VERSION}\n`, flag);
    }
  });

  it('--help lists -v, --version', async () => {
    const r = await box.run(['--help']);
    assert.match(r.stdout, /^ {2}-v, --version +print the version$/m);
  });
});

describe('did you mean', () => {
  it('a mistyped command is one usage line naming the command meant, exit 64', async () => {
    const r = await box.run(['lnit']);
    assert.equal(r.code, 64);
    assert.equal(r.stderr, "raymond: unknown command 'lnit' (did you mean 'lint'?)\n");
    assert.equal(r.stdout, '');
    assert.equal(
      (await box.run(['serv', '--root', '.'])).stderr,
      "raymond: unknown command 'serv' (did you mean 'serve'?)\n",
    );
  });

  it('a workflow folder named like a typo still runs', async () => {
    box.write({ 'lnit/START.sh': '#!/usr/bin/env bash\necho "<result>ran lnit</result>"\n' });
    const r = await box.run(['lnit']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'ran lnit\n');
  });

  it('a missing path close to no command keeps the error naming the path', async () => {
    const r = await box.run(['my-flow']);
    assert.equal(r.code, 64);
    assert.equal(r.stderr, 'raymond: my-flow: no such file or directory\n');
  });

  it('a mistyped option names the option meant on the same line', async () => {
    const root = await box.run(['--lsit']);
    assert.equal(root.code, 64);
    assert.equal(root.stderr, "raymond: unknown option '--lsit' (did you mean '--list'?)\n");
    const lint = await box.run(['lint', 'x', '--jsn']);
    assert.equal(lint.stderr, "raymond: unknown option '--jsn' (did you mean '--json'?)\n");
    const bogus = await box.run(['--bogus']);
    assert.equal(
      bogus.stderr,
      "raymond: unknown option '--bogus' (run raymond --help for usage)\n",
    );
  });
});

describe('ray names itself', () => {
  it("ray --help says Usage: ray, and a subcommand's help too", async () => {
    const r = await ray(['--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: ray PATH \[options\]/);
    assert.match((await ray(['lint', '--help'])).stdout, /^Usage: ray lint \[options\] <path>/);
  });

  it("ray's errors start with ray: and point at ray's help", async () => {
    const typo = await ray(['diagarm']);
    assert.equal(typo.code, 64);
    assert.equal(typo.stderr, "ray: unknown command 'diagarm' (did you mean 'diagram'?)\n");
    assert.equal(
      (await ray(['--bogus'])).stderr,
      "ray: unknown option '--bogus' (run ray --help for usage)\n",
    );
    assert.equal(
      (await ray(['nothing-here'])).stderr,
      'ray: nothing-here: no such file or directory\n',
    );
  });
});

describe('output into a pipe that closes early', () => {
  it('raymond --help | head -1 prints the first line and ends quietly: no EPIPE stack, exit 0', async () => {
    const r = await execa('bash', ['-c', `set -o pipefail; "${CLI}" --help | head -1`], {
      cwd: box.dir,
      reject: false,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /^Usage: raymond /);
    assert.equal(r.stderr, '', 'nothing on stderr');
  });
});
