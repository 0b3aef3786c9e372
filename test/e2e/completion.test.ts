import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** The shell's path, or undefined when it is not installed here. */
async function which(shell: string): Promise<string | undefined> {
  const r = await execa('sh', ['-c', `command -v ${shell}`], { reject: false });
  return r.exitCode === 0 ? String(r.stdout).trim() : undefined;
}

const scripts: Record<string, string> = {};
before(async () => {
  mkdirSync(join(box.dir, 'my-flow'));
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await box.run(['completion', shell]);
    assert.equal(r.code, 0, r.stderr);
    scripts[shell] = join(box.dir, `completion.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});

/**
 * What bash's completion function offers for a command line (the last word
 * is the one being completed), run as bash runs it on Tab.
 */
async function bashComplete(...words: string[]): Promise<string[]> {
  const script = [
    `source ${JSON.stringify(scripts.bash)}`,
    `COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')})`,
    'COMP_CWORD=$((${#COMP_WORDS[@]} - 1))',
    '_raymond',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const r = await execa('bash', ['-c', script], { cwd: box.dir, reject: false });
  assert.equal(r.exitCode, 0, String(r.stderr));
  return String(r.stdout).split('\n').filter(Boolean).sort();
}

describe('raymond completion bash', () => {
  it('source <(raymond completion bash) registers one function for raymond and ray', async () => {
    const r = await execa(
      'bash',
      [
        '-c',
        `source <(${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} completion bash); complete -p raymond; complete -p ray`,
      ],
      { cwd: box.dir, reject: false },
    );
    assert.equal(
      String(r.stdout),
      'complete -F _raymond raymond\ncomplete -F _raymond ray',
      String(r.stderr),
    );
  });

  it('completes a subcommand prefix, and workflow paths beside the commands', async () => {
    assert.deepEqual(await bashComplete('raymond', 'li'), ['lint']);
    assert.deepEqual(await bashComplete('raymond', 'm'), ['mcp', 'merge', 'my-flow']);
    assert.deepEqual(await bashComplete('raymond', 'serve', 'l'), ['list']);
  });

  it("completes a command's own options, and the root's after a workflow path", async () => {
    assert.deepEqual(await bashComplete('raymond', 'lint', '--j'), ['--json']);
    assert.deepEqual(await bashComplete('raymond', 'my-flow', '--on'), ['--on-ask']);
    assert.deepEqual(await bashComplete('raymond', '--max-parallel', '2', 'my-flow', '--budg'), [
      '--budget',
      '--budget-hard',
    ]);
  });

  it("completes an option's choices and folders, in both --opt value and --opt=value", async () => {
    assert.deepEqual(await bashComplete('raymond', '--on-ask', 'p'), ['pause', 'prompt']);
    assert.deepEqual(await bashComplete('raymond', '--on-ask', '=', 'r'), ['reject']);
    assert.deepEqual(await bashComplete('raymond', 'lint', 'x', '--level', ''), [
      'error',
      'info',
      'warning',
    ]);
    assert.deepEqual(await bashComplete('raymond', 'new', 'x', '--template', ''), [
      'batch-refactor',
      'fork-join',
      'review-loop',
    ]);
    assert.deepEqual(await bashComplete('raymond', '--state-dir', 'my'), ['my-flow']);
    assert.deepEqual(await bashComplete('raymond', 'completion', ''), ['bash', 'fish', 'zsh']);
  });
});

describe('raymond completion zsh', () => {
  it('is valid zsh, registers _raymond for raymond and ray, and offers what bash offers', async (t) => {
    const zsh = await which('zsh');
    if (!zsh) return t.skip('zsh is not installed on this machine: the zsh script was not checked');
    assert.equal((await execa(zsh, ['-n', scripts.zsh!], { reject: false })).exitCode, 0);
    const registered = await execa(
      zsh,
      [
        '-c',
        `autoload -U compinit; compinit -u -D; source ${JSON.stringify(scripts.zsh)}; print -- $_comps[raymond] $_comps[ray]`,
      ],
      { cwd: box.dir, reject: false },
    );
    assert.equal(String(registered.stdout), '_raymond _raymond', String(registered.stderr));
    // zsh's completion helpers stood in for by functions that print what they are given.
    const offered = async (...words: string[]) => {
      const stubs =
        '_describe() { local n=${@[-1]}; print -l -- ${(P)n} }; compadd() { shift; print -l -- "$@" }; _files() { print -- FILES }; _message() { print -- MESSAGE }; compdef() { }';
      const r = await execa(
        zsh,
        [
          '-c',
          `${stubs}; source ${JSON.stringify(scripts.zsh)}; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _raymond`,
        ],
        { cwd: box.dir, reject: false },
      );
      return String(r.stdout).split('\n').filter(Boolean);
    };
    assert.ok((await offered('raymond', 'li')).some((l) => l.startsWith('lint:check a workflow')));
    assert.ok(
      (await offered('raymond', 'li')).includes('FILES'),
      'the root also completes workflow paths',
    );
    assert.ok((await offered('raymond', 'lint', '--j')).some((l) => l.startsWith('--json:')));
    assert.deepEqual(
      (await offered('raymond', 'my-flow', '--on-ask', 'p')).sort(),
      ['pause', 'prompt', 'reject'],
      'zsh itself keeps those that match',
    );
  });
});

describe('raymond completion fish', () => {
  it('is valid fish, and fish completes subcommands, options and choices with it', async (t) => {
    const fish = await which('fish');
    if (!fish)
      return t.skip('fish is not installed on this machine: the fish script was not checked');
    assert.equal((await execa(fish, ['-n', scripts.fish!], { reject: false })).exitCode, 0);
    const complete = async (line: string) => {
      const r = await execa(
        fish,
        [
          '--no-config',
          '-c',
          `source ${JSON.stringify(scripts.fish)}; complete -C${JSON.stringify(line)}`,
        ],
        { cwd: box.dir, reject: false, env: { HOME: box.dir } },
      );
      return String(r.stdout)
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    };
    assert.deepEqual(await complete('raymond li'), ['lint']);
    assert.deepEqual(await complete('raymond lint --j'), ['--json']);
    assert.deepEqual((await complete('raymond --on-ask p')).sort(), ['pause', 'prompt']);
    assert.deepEqual(await complete('ray serve l'), ['list'], 'ray completes as raymond');
  });
});
