import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';
import { api, until } from '../helpers/serve.js';

// The built package alone: dist/ copied away from the source tree, as an
// install puts it. The pages' scripts must come with the built files (the
// bundle holds them), not from src/web/client/.
const box = new Sandbox();
const pkg = join(box.dir, 'pkg');
const cli = join(pkg, 'dist/src/cli/main.js');
let server: { url: string; stop(): Promise<void> } | undefined;

/** The page's inline script (not its JSON config), which must parse as a classic script. */
function pageScript(html: string): string {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  assert.equal(scripts.length, 1, 'one inline script');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- parsing the page script as a classic script is the check
  assert.doesNotThrow(() => new Function(scripts[0]!));
  return scripts[0]!;
}

before(async () => {
  cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  const roots = box.write(
    {
      'quiet/workflow.yaml': 'id: quiet\ninput:\n  mode: none\n',
      'quiet/START.sh': sh('echo "<result>ok</result>"'),
    },
    'roots',
  );
  const proc = spawn(process.execPath, [cli, 'serve', '--root', roots, '--port', '0'], {
    cwd: box.dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/[^/]+)\//.exec(err);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`raymond serve ended before listening:\n${err}`)));
  });
  server = { url, stop: () => (proc.kill('SIGTERM'), exited) };
});
after(async () => {
  await server?.stop();
  box.remove();
});

describe('the pages of the built package, away from the source tree', () => {
  it('has no client source beside it', () => {
    assert.ok(
      !existsSync(join(pkg, 'src/web/client')) &&
        !existsSync(join(pkg, 'dist/src/web/client/live-page.ts')),
    );
  });

  it("serves the server page and a run's live page with their scripts inline", async () => {
    const index = await fetch(`${server!.url}/`);
    assert.equal(index.status, 200);
    assert.match(pageScript(await index.text()), /\/runs\?summary=true/);
    const started = await api(`${server!.url}/runs`, 'POST', { workflow_id: 'quiet' });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const id = started.body.run_id as string;
    await until(
      async () => (await api(`${server!.url}/runs/${id}`)).body.status === 'completed',
      `run ${id} completed`,
    );
    const live = await fetch(`${server!.url}/ui/runs/${encodeURIComponent(id)}`);
    assert.equal(live.status, 200);
    const script = pageScript(await live.text());
    assert.match(script, /last_event_id=/);
    assert.match(script, /awaiting-child/, 'the shared fold is in the page');
  });

  it("writes `diagram --html` with the diagram page's script", async () => {
    const page = join(box.dir, 'tour.html');
    const r = await execa(
      process.execPath,
      [cli, 'diagram', join(ROOT, 'workflows/examples/tour'), '--html', page],
      { cwd: box.dir, reject: false },
    );
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(pageScript(readFileSync(page, 'utf8')), /history\.replaceState/);
  });
});
