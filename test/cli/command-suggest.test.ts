import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mistypedCommand, usageMessage } from '../../src/cli/command-suggest.js';

const COMMANDS = [
  'worktrees',
  'merge',
  'lint',
  'diagram',
  'convert',
  'replay',
  'serve',
  'worker',
  'workers',
  'completion',
  'new',
  'help',
];

describe('mistypedCommand', () => {
  const none = () => false;
  it('names the command a bare missing word was meant as', () => {
    assert.equal(mistypedCommand('lnit', COMMANDS, none), 'lint');
  });

  it('leaves a word that exists here alone: a workflow named like a typo still runs', () => {
    assert.equal(
      mistypedCommand('lnit', COMMANDS, (p) => p === 'lnit'),
      undefined,
    );
  });

  it('leaves paths, files and URLs alone', () => {
    for (const word of [
      './lnit',
      'lnit/',
      'lnit.md',
      'lnit.zip',
      'https://x/lnit',
      'workflows/lnit',
    ])
      assert.equal(mistypedCommand(word, COMMANDS, none), undefined, word);
  });
});

describe('usageMessage', () => {
  it("puts commander's guess on the same line, quoted, without the help hint", () => {
    assert.equal(
      usageMessage("error: unknown option '--lsit'\n(Did you mean --list?)", 'raymond'),
      "unknown option '--lsit' (did you mean '--list'?)",
    );
    assert.equal(
      usageMessage(
        "error: unknown option '--jsn'\n(Did you mean one of --json, --jsno?)",
        'raymond lint',
      ),
      "unknown option '--jsn' (did you mean one of '--json', '--jsno'?)",
    );
  });

  it('without a guess, says where help is, under the name given', () => {
    assert.equal(
      usageMessage("error: unknown option '--bogus'", 'ray lint'),
      "unknown option '--bogus' (run ray lint --help for usage)",
    );
  });

  it('escapes control characters of a value quoted back, so the message stays one line', () => {
    assert.equal(
      usageMessage("error: option '--name <label>' argument 'a\nb' is invalid.", 'raymond'),
      "option '--name <label>' argument 'a\\nb' is invalid. (run raymond --help for usage)",
    );
  });
});
