import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RUN_SETTINGS } from '../../src/settings/run-settings-table.js';
import { settingOf } from '../../src/settings/setting-values.js';
import {
  DEFAULT_BUDGET_USD,
  DEFAULT_TIMEOUT_SECONDS,
} from '../../src/settings/run-setting-defaults.js';
import { SettingProblem, attributeName, type AnySetting } from '../../src/setting.js';
import { configTemplate } from '../../src/config/config-file.js';

const entries = Object.entries(RUN_SETTINGS) as unknown as Array<[string, AnySetting]>;

/** What a check says about a value: the line shown, or undefined when it takes it. */
function problem(s: { check: (v: unknown) => unknown }, value: unknown): string | undefined {
  try {
    s.check(value);
    return undefined;
  } catch (err) {
    assert.ok(
      err instanceof SettingProblem,
      `a check fails with SettingProblem, not ${String(err)}`,
    );
    return err.message;
  }
}

describe('the run settings table', () => {
  it('gives every flag, commander attribute, stored name and RunSettings name once', () => {
    for (const field of ['flag', 'stored', 'run'] as const) {
      const names = entries.map(([, s]) => s[field]).filter((n) => n !== undefined);
      assert.equal(new Set(names).size, names.length, `two settings share a ${field}`);
    }
    const attributes = entries.flatMap(([, s]) => (s.flag ? [attributeName(s.flag)] : []));
    assert.equal(new Set(attributes).size, attributes.length);
  });

  it('declares a group, help for a flag, a meaning and a TOML example for each', () => {
    for (const [key, s] of entries) {
      assert.ok(s.doc.length > 10, key);
      assert.ok(s.example !== '', key);
      if (s.flag) assert.ok(s.help.length > 5, `${key} has a flag, so --help needs its line`);
      assert.ok(!s.stored || s.scope === 'run', `${key}: only a run setting is stored`);
    }
  });

  it('refuses a bad value with one line naming what was expected, and takes its own example', () => {
    for (const [key, s] of entries) {
      const example = JSON.parse(s.example) as unknown;
      assert.equal(problem(s, example), undefined, `${key} refuses its own example ${s.example}`);
      const said = problem(s, { not: 'a value' });
      assert.ok(said !== undefined && !said.includes('\n'), `${key}: ${said}`);
    }
    assert.equal(
      problem(RUN_SETTINGS.budget, -1),
      'expected an amount in USD, 0 or more (0 = unlimited)',
    );
    assert.equal(problem(RUN_SETTINGS.max_parallel, 1.5), 'expected a whole number, 1 or more');
    assert.equal(problem(RUN_SETTINGS.name, ''), 'the label is empty');
    assert.match(
      problem(RUN_SETTINGS.task_folder_pattern, 'x/{agent_id}') ?? '',
      /must contain \{workflow_id\}/,
    );
    assert.equal(
      problem(RUN_SETTINGS.on_ask, 'maybe'),
      'expected one of "pause", "reject", "prompt"',
    );
  });

  it('reads a flag as the config file would hold it: numbers, lists, and text a number check refuses', () => {
    assert.equal(RUN_SETTINGS.timeout.fromFlag!('30'), 30);
    assert.equal(RUN_SETTINGS.timeout.fromFlag!('soon'), 'soon');
    assert.deepEqual(settingOf('disallowed_tools')!.fromFlag!('Bash(git *), Edit,'), [
      'Bash(git *)',
      'Edit',
    ]);
    assert.deepEqual(settingOf('disallowed_tools')!.fromFlag!(''), []);
  });

  it('turns a timeout into whole seconds, 0 into the longest timer, and --no-x into x = false', () => {
    assert.equal(RUN_SETTINGS.timeout.toRun!(1.2), 2);
    assert.ok(RUN_SETTINGS.timeout.toRun!(0) > 24 * 24 * 3600);
    assert.equal(RUN_SETTINGS.no_debug.toRun!(true), false);
  });

  it('the config template states the defaults from their constants', () => {
    const template = configTemplate();
    assert.match(template, new RegExp(`Default: ${DEFAULT_TIMEOUT_SECONDS}\\.\\n# timeout = `));
    assert.match(template, new RegExp(`Default: ${DEFAULT_BUDGET_USD}\\.\\n# budget = `));
    for (const [key] of entries)
      assert.match(template, new RegExp(`^# ${key.replace(/^queue\./, '')} = `, 'm'), key);
  });
});
