import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';
import { createValueFiles } from '../../src/executors/value-files.js';

const limits = { entryBytes: 400, totalBytes: 4000 };

describe('value files', () => {
  it('moves a value that does not fit to a private file named by NAME_FILE, unsets NAME, and removes the file on release', async () => {
    const values = createValueFiles({ limits, inherited: {} });
    const big = `${'y'.repeat(400)}\n€ "end"\n`;
    const { env, release } = await values.place({
      RAYMOND_INPUT: big,
      RAYMOND_RESULT: big,
      item: 'a.ts',
      none: undefined,
    });
    const path = env.RAYMOND_INPUT_FILE!;
    assert.equal(readFileSync(path, 'utf8'), big, 'the exact value, no newline added');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
    assert.equal(env.RAYMOND_RESULT_FILE, path, 'one file for one value');
    assert.ok('RAYMOND_INPUT' in env && env.RAYMOND_INPUT === undefined, 'unset, not inherited');
    assert.equal(env.item, 'a.ts');
    assert.equal('item_FILE' in env, false);
    await release();
    assert.equal(existsSync(path), false);
    assert.equal(existsSync(dirname(path)), true, 'the folder lives as long as the run');
    await values.close();
    assert.equal(existsSync(dirname(path)), false);
  });

  it("unsets NAME_FILE inherited from Raymond's own environment, and takes fork attributes such as __proto__ as plain names", async () => {
    const values = createValueFiles({
      limits,
      inherited: { RAYMOND_INPUT_FILE: '/etc/passwd', other_FILE: '/x' },
    });
    const env = Object.assign(Object.create(null) as Record<string, string>, {
      RAYMOND_INPUT: 'small',
      ['__proto__']: 'z'.repeat(400),
    });
    const placed = await values.place(env);
    assert.ok('RAYMOND_INPUT_FILE' in placed.env && placed.env.RAYMOND_INPUT_FILE === undefined);
    assert.equal('other_FILE' in placed.env, false, 'only the names of variables Raymond sets');
    assert.equal(readFileSync(placed.env.__proto___FILE!, 'utf8'), 'z'.repeat(400));
    assert.equal(Object.getPrototypeOf(placed.env), null);
    await placed.release();
    await values.close();
  });

  it('makes no folder while every value fits', async () => {
    const values = createValueFiles({ limits, inherited: {} });
    const placed = await values.place({ A: 'a' });
    assert.deepEqual({ ...placed.env }, { A: 'a' });
    await values.close();
  });

  it('refuses, naming the state file and writing nothing, an environment that cannot fit or a name too long for any variable', async () => {
    const values = createValueFiles({ limits, inherited: {} });
    const many = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`attribute_${i}`, 'v'.repeat(300)]),
    );
    await assert.rejects(
      values.place(many, 'wf/W.sh'),
      (err: Error & { code?: string; file?: string }) =>
        err.code === 'ERR_SCRIPT_START' &&
        err.file === 'wf/W.sh' &&
        /^cannot start the script: its 40 variables .* take \d+ bytes of environment even with their values in files, over the 4000 a step may use/.test(
          err.message,
        ),
    );
    const name = 'n'.repeat(2000);
    await assert.rejects(
      values.place({ [name]: 'v' }, 'wf/W.sh'),
      (err: Error & { code?: string; file?: string }) =>
        err.code === 'ERR_SCRIPT_START' &&
        err.file === 'wf/W.sh' &&
        err.message.startsWith(
          `cannot pass the variable ${'n'.repeat(40)}… (2000 characters) to the script: its name is too long`,
        ),
    );
    await values.close();
  });
});
