import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitCommand } from '../../src/notify/split-command.js';

function words(line: string): string[] {
  const r = splitCommand(line);
  assert.ok(r.ok, `refused ${JSON.stringify(line)}: ${r.ok ? '' : r.problem}`);
  return r.argv;
}

function problem(line: string): string {
  const r = splitCommand(line);
  assert.ok(!r.ok, `accepted ${JSON.stringify(line)} as ${JSON.stringify(r.ok && r.argv)}`);
  return r.problem;
}

describe('splitCommand: a hook command line into argv, as a shell splits words, expanding nothing', () => {
  it('splits on blanks, however many', () => {
    assert.deepEqual(words('  notify-send \t Raymond\n done  '), [
      'notify-send',
      'Raymond',
      'done',
    ]);
  });

  it('keeps quoted blanks and joins quoted and bare parts of one word', () => {
    assert.deepEqual(words(`say 'two words' "and three here" a'b'"c"d`), [
      'say',
      'two words',
      'and three here',
      'abcd',
    ]);
  });

  it('keeps empty quoted words', () => {
    assert.deepEqual(words(`prog '' ""`), ['prog', '', '']);
  });

  it('takes backslash escapes: any character outside quotes, only $ ` " \\ inside double quotes, none inside single quotes', () => {
    assert.deepEqual(words(String.raw`a\ b \'c \"d`), ['a b', "'c", '"d']);
    assert.deepEqual(words(String.raw`"x\"y" "\$HOME" "\n\\" '\n'`), [
      'x"y',
      '$HOME',
      '\\n\\',
      '\\n',
    ]);
    assert.deepEqual(words('one\\\ntwo'), ['onetwo']);
  });

  it('expands nothing: variables, ~, globs, command substitution and operators stay literal', () => {
    assert.deepEqual(words('echo $HOME ~ *.md $(id) `id` a|b > out ; && #c'), [
      'echo',
      '$HOME',
      '~',
      '*.md',
      '$(id)',
      '`id`',
      'a|b',
      '>',
      'out',
      ';',
      '&&',
      '#c',
    ]);
    assert.deepEqual(words(`"$HOME" "~/x" '$(id)'`), ['$HOME', '~/x', '$(id)']);
  });

  it('refuses an unterminated quote, a lone trailing backslash, an empty line and an empty program', () => {
    assert.match(problem(`echo 'oops`), /unterminated single quote/);
    assert.match(problem(`echo "oops`), /unterminated double quote/);
    assert.match(problem(`echo "a\\"`), /unterminated double quote/);
    assert.match(problem('echo \\'), /lone backslash/);
    assert.match(problem('   '), /is empty/);
    assert.match(problem(`'' arg`), /names no program/);
  });
});
