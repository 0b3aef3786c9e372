import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Argument, Command, Option } from 'commander';
import { completionModel, summaryOf } from '../../src/cli/completion-model.js';

function program(): Command {
  const p = new Command('tool').argument('[path]', 'a workflow');
  p.option('--state-dir <dir>', 'folder of state files (default: here)');
  p.option('--trace <file>', 'write events here');
  p.option('--input <text>', 'value of {{input}}; for the first state');
  p.addOption(new Option('--on-ask <mode>', 'what an ask does').choices(['prompt', 'pause']));
  p.addOption(new Option('--inspect [port]', 'watch it live'));
  p.addOption(new Option('--secret').hideHelp());
  const serve = p
    .command('serve')
    .description('serve workflows: start runs')
    .action(() => {});
  serve.command('list').description('list the runs').option('--json', 'as JSON');
  p.command('worktrees').argument('<id>', 'the run');
  p.command('completion').addArgument(new Argument('<shell>').choices(['bash', 'zsh']));
  p.command('help').argument('[command]');
  return p;
}

describe('completionModel', () => {
  const model = completionModel(program());
  const byKey = new Map(model.map((c) => [c.key, c]));

  it('lists every command by its path below the program, parents first', () => {
    assert.deepEqual(
      model.map((c) => c.key),
      ['', 'serve', 'serve:list', 'worktrees', 'completion', 'help'],
    );
    assert.deepEqual(
      byKey.get('')!.subcommands.map((s) => s.name),
      ['serve', 'worktrees', 'completion', 'help'],
    );
    assert.equal(byKey.get('serve')!.subcommands[0]!.summary, 'list the runs');
  });

  it("reads what an option's value is from its value name and choices", () => {
    const opts = new Map(byKey.get('')!.options.map((o) => [o.flags.at(-1), o]));
    assert.equal(opts.get('--state-dir')!.value, 'dir');
    assert.equal(opts.get('--trace')!.value, 'file');
    assert.equal(opts.get('--input')!.value, 'text');
    assert.deepEqual(
      [opts.get('--on-ask')!.value, opts.get('--on-ask')!.choices],
      ['choices', ['prompt', 'pause']],
    );
    assert.equal(opts.get('--inspect')!.value, 'none', 'an optional value is never completed');
    assert.equal(opts.has('--secret'), false, 'hidden options are not offered');
    assert.deepEqual(opts.get('--help')!.flags, ['-h', '--help']);
  });

  it('completes files where an argument is a path, words where it has choices, command names after help', () => {
    assert.equal(byKey.get('')!.files, true);
    assert.equal(byKey.get('worktrees')!.files, false);
    assert.deepEqual(byKey.get('completion')!.words, ['bash', 'zsh']);
    assert.deepEqual(byKey.get('help')!.words, ['serve', 'worktrees', 'completion']);
  });
});

describe('summaryOf', () => {
  it("offers a free value's suggestions: --model gives every backend's model names", async () => {
    const { buildProgram } = await import('../../src/cli/program.js');
    const { allBackends } = await import('../../src/agents/registry/registry.js');
    const root = completionModel(buildProgram({ exitCode: 0 })).find((c) => c.key === '')!;
    const model = root.options.find((o) => o.flags.includes('--model'))!;
    assert.equal(model.value, 'choices');
    assert.ok(model.choices.includes('sonnet'), model.choices.join(' '));
    for (const backend of allBackends())
      for (const name of backend.models) assert.ok(model.choices.includes(name), name);
    // A free value without suggestions stays text.
    assert.equal(root.options.find((o) => o.flags.includes('--input'))!.value, 'text');
  });

  it('keeps the first clause of a help text, cut to a menu line', () => {
    assert.equal(
      summaryOf('value of {{input}} (and $RAYMOND_INPUT) for the first state'),
      'value of {{input}}',
    );
    assert.equal(summaryOf('serve workflows: start runs'), 'serve workflows');
    assert.equal(summaryOf('x'.repeat(100)).length, 70);
  });
});
