import assert from 'node:assert/strict';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { ApiServer } from '../../helpers/api-server.js';
import { ROOT } from '../../helpers/cli.js';

/**
 * "A new backend is its folder and one line in the registry", held true: a
 * copy of the source tree gets a fourth backend (the toy, a CLI that asks
 * Anthropic's Messages API and prints JSON lines of its own) as its folder
 * and one line in backend-list.ts, nothing else; it builds, its imports
 * check, and the built CLI runs a <goto> chain, a <fork> and `raymond test`
 * through it.
 */
const FIXTURE = join(ROOT, 'test/fixtures/toy-backend');
const LIST = 'src/agents/registry/backend-list.ts';
const LINE = "export { TOY } from '../toy/toy-backend.js';\n";

const copy = mkdtempSync(join(tmpdir(), 'raymond-toy-'));
const work = join(copy, 'work');
const server = new ApiServer();
let built: { code: number | undefined; out: string };
after(async () => {
  await server.stop();
  rmSync(copy, { recursive: true, force: true });
});

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

before(async () => {
  for (const part of ['src', 'machines', 'scripts', 'package.json', 'tsconfig.json'])
    cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  // The backend's folder, and its one line.
  cpSync(join(FIXTURE, 'toy'), join(copy, 'src/agents/toy'), { recursive: true });
  writeFileSync(join(copy, LIST), readFileSync(join(copy, LIST), 'utf8') + LINE);
  const r = await execa('npm', ['run', 'build'], { cwd: copy, reject: false, all: true });
  built = { code: r.exitCode, out: String(r.all) };
  await server.start();
  mkdirSync(work);
});

/** The copy's CLI, with the toy on PATH asking the scripted API. */
function run(args: string[]) {
  return execa(process.execPath, [join(copy, 'dist/src/cli/main.js'), ...args], {
    cwd: work,
    reject: false,
    stdin: 'ignore',
    env: {
      PATH: `${join(FIXTURE, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      HOME: join(copy, 'home'),
      TOY_BASE_URL: server.url,
      TOY_HOME: join(copy, 'toy-home'),
    },
  });
}

describe('a fourth backend is its folder and one registry line', () => {
  it('touches nothing else: the tree differs by the folder and the line, it builds, and its imports check', async () => {
    assert.equal(built.code, 0, built.out);
    const changed = files(join(copy, 'src')).filter((f) => {
      const original = join(ROOT, 'src', f);
      try {
        return readFileSync(original, 'utf8') !== readFileSync(join(copy, 'src', f), 'utf8');
      } catch {
        return true;
      }
    });
    assert.deepEqual(changed, [
      'agents/registry/backend-list.ts',
      ...files(join(FIXTURE, 'toy')).map((f) => `agents/toy/${f}`),
    ]);
    const list = readFileSync(join(copy, LIST), 'utf8');
    assert.equal(list.replace(LINE, ''), readFileSync(join(ROOT, LIST), 'utf8'), 'one line added');
    assert.deepEqual(files(join(copy, 'machines')), files(join(ROOT, 'machines')));
    const imports = await execa(process.execPath, [join(copy, 'scripts/check-imports.mjs')], {
      reject: false,
      all: true,
    });
    assert.equal(imports.exitCode, 0, String(imports.all));
  });

  it('runs a <goto> chain in one session, then a <fork> of workers on the toy', async () => {
    server.on('TOY-START', { text: 'first <goto>MID.md</goto>' });
    server.on('TOY-MID', {
      text: '<fork next="DONE.md" item="a">W.md</fork><fork next="DONE.md" item="b">W.md</fork>',
    });
    server.on('TOY-WORKER a', { text: '<result>did a</result>' });
    server.on('TOY-WORKER b', { text: '<result>did b</result>' });
    server.on('TOY-DONE', { text: '<result>all done</result>' });
    const wf = join(work, 'chain');
    mkdirSync(wf);
    writeFileSync(join(wf, 'workflow.yaml'), 'backend: toy\n');
    writeFileSync(join(wf, 'START.md'), 'TOY-START');
    writeFileSync(join(wf, 'MID.md'), 'TOY-MID');
    writeFileSync(join(wf, 'W.md'), 'TOY-WORKER {{item}}');
    writeFileSync(join(wf, 'DONE.md'), 'TOY-DONE');
    const r = await run([wf, '--json', '--workflow-id', 'toy1']);
    assert.equal(r.exitCode, 0, String(r.stderr));
    const summary = JSON.parse(String(r.stdout)) as { results: Record<string, string> };
    assert.deepEqual(summary.results, {
      main: 'all done',
      main_w1: 'did a',
      main_w2: 'did b',
    });
    // The <goto> went on in START's session: MID's request carries START's turn.
    const [start] = server.requestsFor('TOY-START');
    const [mid] = server.requestsFor('TOY-MID');
    assert.equal(start!.messageCount, 1);
    assert.equal(mid!.messageCount, 3);
    assert.match(mid!.transcript, /TOY-START/);
    // Workers start fresh.
    assert.equal(server.requestsFor('TOY-WORKER a')[0]!.messageCount, 1);
  });

  it('runs `raymond test` on a toy workflow against the scripted model, in the API the toy names', async () => {
    const wf = join(work, 'tested');
    mkdirSync(join(wf, 'tests'), { recursive: true });
    writeFileSync(join(wf, 'workflow.yaml'), 'backend: toy\n');
    writeFileSync(join(wf, 'START.md'), 'Say where to go.');
    writeFileSync(join(wf, 'END.md'), 'Finish.');
    writeFileSync(
      join(wf, 'tests/goto.test.yaml'),
      [
        'replies:',
        '  START:',
        '    - <goto>END.md</goto>',
        '  END:',
        '    - text: <result>tested</result>',
        '      tokens: { input: 100, output: 5 }',
        'expect:',
        '  status: completed',
        '  exit: 0',
        '  paths:',
        '    main: [START, END]',
        '  results:',
        '    main: tested',
        '',
      ].join('\n'),
    );
    const r = await run(['test', wf, '--json']);
    assert.equal(r.exitCode, 0, `${String(r.stdout)}\n${String(r.stderr)}`);
    const report = JSON.parse(String(r.stdout)) as { passed: number; failed: number };
    assert.equal(report.passed, 1);
    assert.equal(report.failed, 0);
  });
});
