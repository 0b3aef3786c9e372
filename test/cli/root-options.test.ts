import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildProgram } from '../../src/cli/program.js';
import { settingEntries } from '../../src/settings/setting-values.js';

const help = () => buildProgram({ exitCode: 0 }).helpInformation();

describe('raymond --help', () => {
  it('groups the root options by topic, in order, each setting under its table group', () => {
    const text = help();
    const headings = [...text.matchAll(/^([A-Z][A-Za-z ()]+ options):$/gm)].map((m) => m[1]);
    assert.deepEqual(headings, [
      'Run options',
      'Agents options',
      'Agent turns options',
      'Claude Code options',
      'Asking options',
      'Queue (many machines) options',
      'Notifications options',
      'Inspection options',
      'Runs and state options',
      'Output options',
    ]);
    const section = (heading: string) => text.slice(text.indexOf(`${heading}:`)).split('\n\n')[0]!;
    assert.match(section('Run options'), /--budget <usd>/);
    assert.match(section('Asking options'), /--on-ask <mode>[\s\S]*--answer/);
    assert.match(section('Output options'), /--no-debug[\s\S]*--json/);
    assert.match(section('Agent turns options'), /--model <model>[\s\S]*--effort/);
    // A backend's own settings, asked of the registry, under its title.
    assert.match(section('Claude Code options'), /--claude-bin <path>[\s\S]*--no-warm/);
    for (const [, s] of settingEntries())
      if (s.flag)
        assert.ok(
          section(`${s.group} options`).includes(s.flag.split(' ')[0]!),
          `${s.flag} under ${s.group}`,
        );
  });

  it('lists the commands in groups and ends with examples', () => {
    const text = help();
    assert.match(text, /^Commands about runs:\n {2}worktrees/m);
    assert.match(text, /^Commands about workflows:\n {2}lint/m);
    assert.match(text, /^Serving and many machines:\n {2}serve/m);
    // Examples come from addHelpText, which helpInformation leaves out: the e2e test checks them on the built CLI.
  });

  it('states defaults from the constants', () => {
    assert.match(
      help(),
      /--timeout <seconds>\s+kill a step that prints nothing for this long\s+\(0: never\) \(default: 600\)/,
    );
  });
});
