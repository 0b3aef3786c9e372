import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { openScope } from '../../src/scope/scope.js';
import { makeZip } from '../helpers/make-zip.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-scope-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function code(err: unknown): string {
  assert.ok(err instanceof RaymondError);
  return err.code;
}

describe('state resolution', async () => {
  const scope = await openScope(
    folderSync('res', [
      'START.md',
      'PLAN.md',
      'RUN.sh',
      'BOTH.md',
      'BOTH.sh',
      'notes.txt',
      'WIN.bat',
    ]),
  );

  it('resolves NAME to NAME.md, else NAME.sh', () => {
    assert.equal(scope.resolve('PLAN', 'src'), 'PLAN.md');
    assert.equal(scope.resolve('RUN', 'src'), 'RUN.sh');
  });

  it('accepts an explicit extension only as written', () => {
    assert.equal(scope.resolve('RUN.sh', 'src'), 'RUN.sh');
    assert.throws(
      () => scope.resolve('RUN.md', 'src'),
      (e) => code(e) === 'ERR_STATE_NOT_FOUND',
    );
  });

  it('calls NAME ambiguous when NAME.md and NAME.sh both exist', () => {
    assert.throws(
      () => scope.resolve('BOTH', 'wf/X.md'),
      (e) =>
        code(e) === 'ERR_STATE_AMBIGUOUS' &&
        /^wf\/X\.md: target "BOTH" is ambiguous/.test(formatError(e)),
    );
  });

  it('refuses names that are not states, paths and scripts of another platform', () => {
    assert.throws(
      () => scope.resolve('notes', 'src'),
      (e) => code(e) === 'ERR_STATE_NOT_FOUND',
    );
    assert.throws(
      () => scope.resolve('../res/PLAN', 'src'),
      (e) => code(e) === 'ERR_TARGET_INVALID',
    );
    assert.throws(
      () => scope.resolve('WIN.bat', 'src'),
      (e) => code(e) === 'ERR_STATE_UNSUPPORTED',
    );
  });

  it('reads state text once and refuses non-UTF-8 files', async () => {
    assert.equal(await scope.readText('PLAN.md'), '# PLAN.md\n');
    writeFileSync(join(dir, 'res', 'BAD.md'), Buffer.from([0x66, 0xff, 0xfe, 0x00]));
    const s2 = await openScope(join(dir, 'res', 'START.md'));
    await assert.rejects(
      s2.readText('BAD.md'),
      (e) => code(e) === 'ERR_FILE_READ' && /not valid UTF-8/.test((e as Error).message),
    );
  });
});

describe('entries and scope kinds', () => {
  it('a file scope starts at the file and resolves in its folder', async () => {
    const path = folderSync('file', ['START.sh', 'B.md']);
    const scope = await openScope(join(path, 'B.md'));
    assert.deepEqual(scope.ref, { kind: 'file', path: join(path, 'B.md'), entry: 'B.md' });
    assert.equal(scope.resolve('START', 'x'), 'START.sh');
    assert.equal(scope.name, 'B');
  });

  it('a folder needs exactly one entry', async () => {
    assert.equal(
      (await openScope(folderSync('e1', ['1_START.md', 'B.md']))).ref.entry,
      '1_START.md',
    );
    await assert.rejects(
      openScope(folderSync('e2', ['1_START.md', 'START.sh'])),
      (e) => code(e) === 'ERR_ENTRY_AMBIGUOUS',
    );
    await assert.rejects(
      openScope(folderSync('e3', ['B.md'])),
      (e) => code(e) === 'ERR_ENTRY_NOT_FOUND',
    );
  });

  it('a zip scope reads entries and extracts scripts to run them', async () => {
    const zip = join(dir, 'w.zip');
    writeFileSync(
      zip,
      makeZip([
        { name: 'w/' },
        { name: 'w/START.sh', content: 'echo "<result>z</result>"\n' },
        { name: 'w/A.md', content: 'prompt' },
      ]),
    );
    const scope = await openScope(zip);
    assert.deepEqual(scope.ref, { kind: 'zip', path: zip, entry: 'START.sh' });
    assert.equal(await scope.readText('A.md'), 'prompt');
    assert.equal(scope.display('A.md'), `${zip}:A.md`);
    const script = await scope.scriptPath('START.sh');
    assert.equal(readFileSync(script, 'utf8'), 'echo "<result>z</result>"\n');
    await scope.dispose();
    assert.equal(existsSync(script), false, 'extracted files are removed');
  });
});

function folderSync(name: string, files: string[]): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  for (const f of files) writeFileSync(join(path, f), `# ${f}\n`);
  return path;
}
