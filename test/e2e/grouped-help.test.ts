import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Sandbox } from '../helpers/cli.js';
import {
  DEFAULT_BUDGET_USD,
  DEFAULT_TIMEOUT_SECONDS,
} from '../../src/settings/run-setting-defaults.js';

const box = new Sandbox();
after(() => box.remove());

describe('help and the config template, from the settings table', () => {
  it('raymond --help: options grouped by topic, commands grouped, examples at the end', async () => {
    const r = await box.run(['--help']);
    assert.equal(r.code, 0, r.stderr);
    for (const heading of [
      'Run options:',
      'Claude Code options:',
      'Asking options:',
      'Runs and state options:',
      'Commands about runs:',
      'Examples:',
    ])
      assert.match(r.stdout, new RegExp(`^${heading.replace(/[()]/g, '\\$&')}$`, 'm'), heading);
    assert.ok(
      r.stdout.indexOf('Examples:') > r.stdout.indexOf('Commands about runs:'),
      'examples come last',
    );
    assert.match(r.stdout, /^ {2}raymond --resume \S+ --input "yes"/m);
  });

  it('a flag and the config file refuse a bad value with the same words', async () => {
    const flag = await box.run(['x', '--max-parallel', '0']);
    assert.equal(flag.code, 64);
    assert.match(flag.stderr, /argument '0' is invalid\. expected a whole number, 1 or more/);
    const sub = new Sandbox();
    try {
      sub.write({ '.raymond/config.toml': '[raymond]\nmax_parallel = 0\n' });
      const config = await sub.run(['--list']);
      assert.equal(config.code, 0, 'the listing reads no config');
      const run = await sub.run(['nothing-here']);
      assert.equal(run.code, 64);
      assert.match(
        run.stderr,
        /config\.toml: raymond\.max_parallel = 0: expected a whole number, 1 or more\n$/,
      );
    } finally {
      sub.remove();
    }
  });

  it('raymond --init-config writes every key with its default from the constants', async () => {
    const r = await box.run(['--init-config']);
    assert.equal(r.code, 0, r.stderr);
    const template = readFileSync(join(box.dir, '.raymond/config.toml'), 'utf8');
    assert.match(
      template,
      new RegExp(
        `Default: ${DEFAULT_TIMEOUT_SECONDS}\\.\\n# timeout = ${DEFAULT_TIMEOUT_SECONDS}\\n`,
      ),
    );
    assert.match(template, new RegExp(`Default: ${DEFAULT_BUDGET_USD}\\.\\n# budget = `));
    assert.match(template, /^# \[raymond\.queue\]\n[\s\S]*^# push_remote = "origin"$/m);
  });
});
