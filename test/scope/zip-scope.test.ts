import assert from 'node:assert/strict';
import { spawnSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { openScope } from '../../src/scope/scope.js';
import { MAX_STATE_BYTES, zipScopeFiles } from '../../src/scope/zip-scope.js';
import { deflatedZeros, makeZip, type ZipInput } from '../helpers/make-zip.js';

const FILE = 'flow.zip';
const dir = mkdtempSync(join(tmpdir(), 'raymond-zip-scope-'));
// Extraction goes under $TMPDIR: point it at a folder of this test's own.
const savedTmp = process.env.TMPDIR;
const TMP = join(dir, 'tmp');
before(() => {
  mkdirSync(TMP);
  process.env.TMPDIR = TMP;
});
after(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(dir, { recursive: true, force: true });
});

const PARENT = () => join(TMP, `raymond-zip-${process.getuid!()}`);

function zipFile(name: string, entries: ZipInput[]): string {
  const path = join(dir, name);
  writeFileSync(path, makeZip(entries));
  return path;
}

function refused(pattern: RegExp, code = 'ERR_ZIP_INVALID') {
  return (err: unknown) => {
    assert.ok(err instanceof RaymondError, String(err));
    assert.equal(err.code, code);
    assert.ok(!formatError(err).includes('\n'), 'one line');
    assert.match(formatError(err), pattern);
    return true;
  };
}

/** A pid that no process has: one of a child that has exited. */
function deadPid(): number {
  return spawnSync('true').pid;
}

const WORKFLOW: ZipInput[] = [
  { name: 'w/' },
  { name: 'w/START.sh', content: 'echo "<goto>NEXT</goto>"\n' },
  { name: 'w/NEXT.md', content: 'prompt' },
  { name: 'w/notes.txt', content: 'not a state' },
];

describe('zip scope extraction', () => {
  it('extracts the state files once, read-only, and reuses them for every step', async () => {
    const scope = await openScope(zipFile('once.zip', WORKFLOW));
    const script = await scope.scriptPath('START.sh');
    const first = statSync(script);
    const again = await Promise.all(Array.from({ length: 20 }, () => scope.scriptPath('START.sh')));
    assert.deepEqual(new Set(again), new Set([script]));
    const later = statSync(script);
    assert.equal(later.ino, first.ino, 'the file is never rewritten');
    assert.equal(later.mtimeMs, first.mtimeMs);
    assert.equal(first.mode & 0o777, 0o500, 'scripts are read-only');
    assert.equal(statSync(join(script, '..', 'NEXT.md')).mode & 0o777, 0o400);
    assert.equal(
      existsSync(join(script, '..', 'notes.txt')),
      false,
      'only state files are extracted',
    );
    assert.equal(readFileSync(script, 'utf8'), 'echo "<goto>NEXT</goto>"\n');
    assert.equal(await scope.readText('NEXT.md'), 'prompt');
    assert.match(
      script,
      new RegExp(`^${PARENT()}/${process.pid}-[^/]+/START\\.sh$`),
      'under a folder named after its owner',
    );
    await scope.dispose();
    assert.equal(existsSync(join(script, '..')), false, 'dispose removes the folder');
  });

  it('removes folders left by dead owners and keeps those of live ones', async () => {
    const parent = PARENT();
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    const dead = join(parent, `${deadPid()}-killed`);
    mkdirSync(dead);
    writeFileSync(join(dead, 'START.sh'), 'x', { mode: 0o500 });
    const sleeper = spawn('sleep', ['30']);
    const live = join(parent, `${sleeper.pid}-running`);
    mkdirSync(live);
    try {
      const scope = await openScope(zipFile('sweep.zip', WORKFLOW));
      assert.equal(existsSync(dead), false, "a dead owner's folder is removed");
      assert.equal(existsSync(live), true, "a live owner's folder is kept");
      await scope.dispose();
    } finally {
      sleeper.kill();
    }
  });

  it('refuses a parent folder others may write to', async () => {
    const parent = PARENT();
    mkdirSync(parent, { recursive: true });
    chmodSync(parent, 0o777);
    try {
      await assert.rejects(
        openScope(zipFile('open.zip', WORKFLOW)),
        refused(/not a private folder of this user/, 'ERR_SCOPE'),
      );
    } finally {
      chmodSync(parent, 0o700);
    }
  });

  it('refuses an entry that inflates past its declared size, and leaves nothing behind', async () => {
    const mine = () => readdirSync(PARENT()).filter((name) => name.startsWith(`${process.pid}-`));
    const path = zipFile('liar.zip', [
      { name: 'START.sh', content: '#'.repeat(10 * 2 ** 20), declaredSize: 100 },
    ]);
    await assert.rejects(
      openScope(path),
      refused(/^.*liar\.zip: entry "START\.sh" is larger than its declared size of 100 bytes$/),
    );
    assert.deepEqual(mine(), [], 'the half-extracted folder is removed');
  });
});

describe('zip scope names and size caps', () => {
  const zip = (entries: ZipInput[]) => makeZip(entries);

  it('refuses two entries with the same name', () => {
    const data = zip([
      { name: 'START.sh', content: 'echo first' },
      { name: 'START.sh', content: 'echo second' },
    ]);
    assert.throws(
      () => zipScopeFiles(data, FILE),
      refused(
        /^flow\.zip: entries "START\.sh" and "START\.sh" are both the file START\.sh; keep one$/,
      ),
    );
  });

  it('refuses two entries that the layout maps to the same state (/ and \\ are both separators)', () => {
    const data = zip([
      { name: 'w/START.sh', content: 'a' },
      { name: 'w\\START.sh', content: 'b' },
    ]);
    assert.throws(
      () => zipScopeFiles(data, FILE),
      refused(/entries "w\/START\.sh" and "w\\START\.sh" are both the file START\.sh/),
    );
    assert.deepEqual(
      [
        ...zipScopeFiles(
          zip([
            { name: 'w\\START.sh', content: 'a' },
            { name: 'w\\B.md', content: 'b' },
          ]),
          FILE,
        ).keys(),
      ],
      ['START.sh', 'B.md'],
    );
  });

  it('refuses a state file declared larger than the cap, before inflating anything', () => {
    const data = zip([
      { name: 'START.sh', content: 'x' },
      { name: 'BIG.md', content: 'small', declaredSize: MAX_STATE_BYTES + 1 },
    ]);
    assert.throws(
      () => zipScopeFiles(data, FILE),
      refused(
        /^flow\.zip: entry "BIG\.md" is 64\.0 MiB uncompressed; a state file may be at most 64 MiB$/,
      ),
    );
    // Files that are not states are never extracted, so no cap applies to them.
    assert.ok(
      zipScopeFiles(
        zip([
          { name: 'START.sh', content: 'x' },
          { name: 'data.bin', content: 'y', declaredSize: 2 ** 31 },
        ]),
        FILE,
      ).has('data.bin'),
    );
  });

  it('refuses state files that together pass the total cap', () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({
      name: `S${i}.md`,
      content: 'x',
      declaredSize: 60 * 2 ** 20,
    }));
    assert.throws(
      () => zipScopeFiles(zip([{ name: 'START.sh', content: 'x' }, ...entries]), FILE),
      refused(/more than 256 MiB uncompressed \(at entry "S4\.md"\)/),
    );
  });

  it('refuses a 1 GiB zip bomb entry without inflating it', { timeout: 120_000 }, async () => {
    const bomb = await deflatedZeros(2 ** 30);
    assert.ok(bomb.data.length < 2 * 2 ** 20, 'the archive is about a megabyte');
    const path = zipFile('bomb.zip', [
      { name: 'START.sh', content: 'echo' },
      { name: 'BIG.md', deflated: bomb },
    ]);
    await assert.rejects(
      openScope(path),
      refused(
        /bomb\.zip: entry "BIG\.md" is 1024 MiB uncompressed; a state file may be at most 64 MiB/,
      ),
    );
  });
});
