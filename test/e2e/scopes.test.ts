import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { deflatedZeros, makeZip, type ZipInput } from '../helpers/make-zip.js';
import { CLI, Sandbox, alive, killGroupIfAlive, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const files = {
  'START.sh': sh('echo "<goto>MIDDLE</goto>"'),
  'MIDDLE.sh': sh('echo "<call return=\\"END\\">SUB</call>"'),
  'SUB.sh': sh('echo "<result>sub ran in $(basename "$PWD")</result>"'),
  'END.sh': sh('echo "<result>end: $RAYMOND_INPUT</result>"'),
};

function zip(name: string, entries: ZipInput[]): string {
  const path = join(box.dir, name);
  writeFileSync(path, makeZip(entries));
  return path;
}

describe('workflow scopes', () => {
  it('a directory starts at START', async () => {
    const wf = box.write(files, 'dir-scope');
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, `end: sub ran in ${box.dir.split('/').pop()}`);
    assert.match(summary(r).workflow_id!, /^dir-scope-[0-9a-f]{8}$/);
  });

  it('a directory prefers 1_START', async () => {
    const wf = box.write(
      {
        '1_START.sh': sh('echo "<result>one</result>"'),
        'OTHER.sh': sh('echo "<result>other</result>"'),
      },
      'one-start',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(summary(r).results.main, 'one');
  });

  it('a state file starts at that file, with its folder as the scope', async () => {
    box.write(files, 'file-scope');
    const r = await box.run(['file-scope/MIDDLE.sh', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
    assert.match(summary(r).workflow_id!, /^MIDDLE-[0-9a-f]{8}$/);
    const { fingerprints, ...scope } = box
      .states()
      .find((s) => s.workflow_id === summary(r).workflow_id)!.scope;
    assert.deepEqual(scope, {
      kind: 'file',
      path: join(box.dir, 'file-scope/MIDDLE.sh'),
      entry: 'MIDDLE.sh',
    });
    assert.deepEqual(
      Object.keys(fingerprints!),
      ['END.sh', 'MIDDLE.sh', 'START.sh', 'SUB.sh'],
      'the whole folder is the scope',
    );
  });

  it('a flat zip runs its scripts from the archive', async () => {
    const path = zip(
      'flat.zip',
      Object.entries(files).map(([name, content]) => ({ name, content })),
    );
    const r = await box.run([path, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
    assert.match(summary(r).workflow_id!, /^flat-[0-9a-f]{8}$/);
  });

  it('a zip with one top folder works too', async () => {
    const path = zip('folder.zip', [
      { name: 'wf/' },
      ...Object.entries(files).map(([name, content]) => ({ name: `wf/${name}`, content })),
    ]);
    const r = await box.run([path, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
  });

  it('a zip made by macOS Finder runs: its __MACOSX/ folder and .DS_Store files are passed over; lint and convert take it too', async () => {
    const appleDouble = Buffer.concat([
      Buffer.from([0, 5, 22, 7, 0, 2, 0, 0]),
      Buffer.from('Mac OS X        '),
    ]);
    const path = zip('finder.zip', [
      { name: 'wf/' },
      ...Object.entries(files).map(([name, content]) => ({ name: `wf/${name}`, content })),
      { name: 'wf/.DS_Store', content: Buffer.from([0, 0, 0, 1, 66, 117, 100, 49]) },
      { name: '__MACOSX/' },
      { name: '__MACOSX/wf/' },
      ...Object.keys(files).map((name) => ({
        name: `__MACOSX/wf/._${name}`,
        content: appleDouble,
      })),
      { name: '__MACOSX/wf/._.DS_Store', content: appleDouble },
    ]);
    const r = await box.run([path, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
    const lint = await box.run(['lint', path]);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);
    const convert = await box.run(['convert', path, '--output', join(box.dir, 'finder.yaml')]);
    assert.equal(convert.code, 0, convert.stderr);
    assert.doesNotMatch(
      readFileSync(join(box.dir, 'finder.yaml'), 'utf8'),
      /MACOSX|DS_Store|Mac OS X/,
    );
  });

  const refused: Array<[string, Array<{ name: string; content?: string }>, RegExp]> = [
    [
      'two top folders',
      [
        { name: 'a/START.sh', content: 'x' },
        { name: 'b/END.sh', content: 'x' },
      ],
      /unsupported layout/,
    ],
    [
      'files at two levels',
      [
        { name: 'START.sh', content: 'x' },
        { name: 'sub/END.sh', content: 'x' },
      ],
      /unsupported layout/,
    ],
    ['nested folders', [{ name: 'a/b/START.sh', content: 'x' }], /unsupported layout/],
    [
      'a .. entry',
      [
        { name: 'START.sh', content: 'x' },
        { name: '../evil.sh', content: 'x' },
      ],
      /unsafe entry "\.\.\/evil\.sh"/,
    ],
    [
      'an absolute entry',
      [{ name: '/etc/evil.sh', content: 'x' }],
      /unsafe entry "\/etc\/evil\.sh"/,
    ],
    ['no entry state', [{ name: 'OTHER.sh', content: 'x' }], /no entry state/],
  ];
  for (const [name, entries, pattern] of refused) {
    it(`a zip with ${name} is refused with exit 64`, async () => {
      const path = zip(`${name.replace(/\W+/g, '-')}.zip`, entries);
      const r = await box.run([path]);
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr, pattern);
      assert.ok(r.stderr.includes(path.split('/').pop()!), 'names the archive');
    });
  }

  it('a file named .zip that is not a zip is refused', async () => {
    writeFileSync(join(box.dir, 'fake.zip'), 'not a zip at all');
    const r = await box.run(['fake.zip']);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /^raymond: fake\.zip: /m);
  });
});

describe('zip workflows: extraction, caps and names', () => {
  /** A fresh $TMPDIR for one run, so its extraction folders can be looked at. */
  function tmp(name: string): string {
    const path = join(box.dir, `tmp-${name}`);
    mkdirSync(path);
    return path;
  }

  /** Every file under a folder, as relative paths. */
  function filesUnder(path: string): string[] {
    return readdirSync(path, { recursive: true, withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => join(e.parentPath, e.name).slice(path.length + 1));
  }

  it('60 forked workers run the same extracted script at once, and the folder is removed at the end', async () => {
    const worker = sh(
      'for i in 1 2 3 4 5; do',
      '  sleep 0.02',
      '  echo "line $i"',
      'done',
      'echo "<result>$item</result>"',
    );
    const forks = Array.from(
      { length: 60 },
      (_, i) => `<fork next=\\"DONE\\" item=\\"w${i}\\">WORKER</fork>`,
    ).join('');
    const path = zip('fan-out.zip', [
      { name: 'START.sh', content: sh(`echo "${forks}"`) },
      { name: 'WORKER.sh', content: worker },
      { name: 'DONE.sh', content: sh('echo "<result>dispatched</result>"') },
    ]);
    const TMPDIR = tmp('fan-out');
    const r = await box.run([path, '--json', '--max-parallel', '30'], { TMPDIR });
    assert.equal(r.code, 0, r.stderr);
    const results = summary(r).results;
    assert.equal(Object.keys(results).length, 61);
    assert.deepEqual(
      new Set(
        Object.entries(results)
          .filter(([id]) => id !== 'main')
          .map(([, v]) => v),
      ),
      new Set(Array.from({ length: 60 }, (_, i) => `w${i}`)),
    );
    assert.deepEqual(filesUnder(TMPDIR), [], 'nothing extracted is left');
  });

  it('a run killed with SIGKILL leaves its folder, and the next zip run removes it', async () => {
    const TMPDIR = tmp('killed');
    const slow = zip('slow.zip', [
      {
        name: 'START.sh',
        content: sh(
          'echo $$ > "$RAYMOND_WORKFLOW_ID.pid"',
          'sleep 30',
          'echo "<result>late</result>"',
        ),
      },
    ]);
    const run = execa(process.execPath, [CLI, slow, '--workflow-id', 'killed'], {
      cwd: box.dir,
      env: { TMPDIR },
      reject: false,
      stdin: 'ignore',
    });
    const pidFile = join(box.dir, 'killed.pid');
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await sleep(50);
    run.kill('SIGKILL');
    await run;
    const script = Number(readFileSync(pidFile, 'utf8'));
    killGroupIfAlive(script);
    for (let i = 0; i < 100 && alive(script); i++) await sleep(20);
    assert.deepEqual(
      filesUnder(TMPDIR).map((f) => f.split('/').at(-1)),
      ['START.sh'],
      'SIGKILL runs no cleanup',
    );

    const quick = zip('quick.zip', [
      { name: 'START.sh', content: sh('echo "<result>quick</result>"') },
    ]);
    const r = await box.run([quick, '--json'], { TMPDIR });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(filesUnder(TMPDIR), [], "the dead run's folder is removed by the next one");
  });

  it(
    'a zip bomb (a megabyte holding a 1 GiB state) is refused at once, in one line, without inflating it',
    { timeout: 120_000 },
    async () => {
      const path = zip('bomb.zip', [
        { name: 'w/START.sh', content: sh('echo "<result>x</result>"') },
        { name: 'w/BIG.md', deflated: await deflatedZeros(2 ** 30) },
      ]);
      // Peak memory of the CLI, printed as it exits (maxRSS is in KiB).
      const probe = join(box.dir, 'peak-rss.mjs');
      writeFileSync(
        probe,
        "process.on('exit', () => process.stderr.write(`peak-rss-kib=${process.resourceUsage().maxRSS}\\n`));\n",
      );
      const r = await box.run([path, '--json'], {
        TMPDIR: tmp('bomb'),
        NODE_OPTIONS: `--import=${probe}`,
      });
      assert.equal(r.code, 64, r.stderr);
      assert.match(
        r.stderr,
        /^raymond: \S*bomb\.zip: entry "w\/BIG\.md" is 1024 MiB uncompressed; a state file may be at most 64 MiB$/m,
      );
      const peak = Math.max(
        ...[...r.stderr.matchAll(/peak-rss-kib=(\d+)/g)].map((m) => Number(m[1])),
      );
      assert.ok(peak > 0 && peak < 300 * 1024, `peak RSS ${Math.round(peak / 1024)} MiB`);
      const states = existsSync(join(box.dir, '.raymond/state')) ? box.states() : [];
      assert.deepEqual(
        states.filter((s) => s.workflow_id?.startsWith('bomb-')),
        [],
        'no state file is written',
      );
    },
  );

  it('two entries with the same name are refused instead of running the last one', async () => {
    const path = zip('twice.zip', [
      { name: 'START.sh', content: sh('echo "<result>first</result>"') },
      { name: 'START.sh', content: sh('echo "<result>second</result>"') },
    ]);
    const r = await box.run([path, '--json'], { TMPDIR: tmp('twice') });
    assert.equal(r.code, 64, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /^raymond: \S*twice\.zip: entries "START\.sh" and "START\.sh" are both the file START\.sh; keep one$/m,
    );
  });
});
