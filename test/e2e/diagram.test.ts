import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { createMachine } from 'xstate';
import { ROOT, Sandbox } from '../helpers/cli.js';
import { countColour, decodePng } from '../helpers/png.js';
import { findChromium } from '../helpers/browser.js';

const box = new Sandbox();
after(() => box.remove());

const TOUR = join(ROOT, 'workflows/examples/tour');
const TOUR_STATES = [
  '1_START.sh',
  'AFTER_CALL.sh',
  'AFTER_FUNCTION.sh',
  'COUNTDOWN.sh',
  'DONE.sh',
  'SHOUT.sh',
  'WORKER.sh',
];

const chromium = findChromium();

/** Runs headless Chromium on a page with a throwaway profile, offline. */
async function headless(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'raymond-chromium-'));
  try {
    const r = await execa(
      chromium!,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
        '--hide-scrollbars',
        '--force-color-profile=srgb',
        `--user-data-dir=${profile}`,
        ...args,
      ],
      { timeout: 90_000, reject: false, stdin: 'ignore' },
    );
    assert.equal(r.exitCode, 0, r.stderr);
    return r.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

describe('raymond diagram', () => {
  it('draws a lock on the states whose tools are restricted', async () => {
    const wf = box.write(
      {
        'START.md': '---\ntools: [Read]\n---\nLook. <goto>WORK</goto>',
        'WORK.md': 'Act. <result>done</result>',
      },
      'locked',
    );
    const r = await box.run(['diagram', wf]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /START_md\("\u{1F512} START\.md"\)/u);
    assert.match(r.stdout, /WORK_md\("WORK\.md"\)/);
    const page = join(box.dir, 'locked.html');
    assert.equal((await box.run(['diagram', wf, '--html', page])).code, 0);
    assert.match(readFileSync(page, 'utf8'), /<text[^>]*>\u{1F512} START\.md<\/text>/u);
  });

  it('prints a Mermaid flowchart of the workflow', async () => {
    const r = await box.run(['diagram', TOUR]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], 'flowchart TD');
    for (const line of [
      '  start --> 1_START_sh',
      '  1_START_sh -->|call| COUNTDOWN_sh',
      '  COUNTDOWN_sh -.->|reset| COUNTDOWN_sh',
      '  DONE_sh -->|result| result',
    ])
      assert.ok(lines.includes(line), line);
  });

  it('draws a cross-workflow tag as an arrow to a box for the other workflow, a missing one marked', async () => {
    const r = await box.run(['diagram', join(ROOT, 'workflows/examples/compose')]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    for (const line of [
      '  workflow_1[["workflow ../count-words/"]]',
      '  1_START_sh -->|"call-workflow"| workflow_1',
      '  1_START_sh -.->|return| REPORT_sh',
      '  REPORT_sh -.->|"fork-workflow"| workflow_1',
    ])
      assert.ok(lines.includes(line), `${line}\n${r.stdout}`);
    const wf = box.write(
      { 'START.sh': '#!/bin/sh\necho "<reset-workflow>../gone/</reset-workflow>"\n' },
      'diagram-missing',
    );
    const missing = await box.run(['diagram', wf]);
    assert.ok(
      missing.stdout.split('\n').includes('  missing_1["../gone/ (missing)"]'),
      missing.stdout,
    );
  });

  it('writes the HTML page and the XState machine, and names them', async () => {
    const [html, machine] = [join(box.dir, 'tour.html'), join(box.dir, 'tour.json')];
    const r = await box.run(['diagram', TOUR, '--html', html, '--xstate', machine]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `wrote ${html}\nwrote ${machine}\n`);
    const page = readFileSync(html, 'utf8');
    assert.doesNotMatch(page, /(src|href)\s*=\s*["']?https?:|<link\b|<script[^>]*\bsrc=/i);
    for (const state of TOUR_STATES) assert.ok(page.includes(`data-file="${state}"`), state);
    const config = JSON.parse(readFileSync(machine, 'utf8'));
    const states = Object.keys(createMachine(config).root.states).sort();
    assert.deepEqual(states, [...TOUR_STATES.map((s) => s.replace('.', '_')), 'result'].sort());
  });

  it('refuses a path that is no workflow, and an unwritable file, with exit 64', async () => {
    const missing = await box.run(['diagram', 'nope']);
    assert.equal(missing.code, 64);
    assert.equal(missing.stderr, 'raymond: nope: no such file or directory\n');
    const unwritable = await box.run([
      'diagram',
      TOUR,
      '--html',
      join(box.dir, 'no/such/dir/x.html'),
    ]);
    assert.equal(unwritable.code, 64);
    assert.match(unwritable.stderr, /^raymond: .*x\.html: cannot write: ENOENT\n$/);
  });

  // Each test carries the skip, not the suite: node:test counts a skipped suite as no skipped test at all.
  const needsChromium = {
    skip: chromium ? false : 'chromium is not installed (apt-get install -y chromium)',
  };

  describe('the page in headless Chromium', () => {
    const page = join(box.dir, 'shot.html');
    const url = (hash = '') => `${pathToFileURL(page).href}${hash}`;

    it(
      'runs its script: the entry state is shown, a #state address shows that state',
      needsChromium,
      async () => {
        const r = await box.run(['diagram', TOUR, '--html', page]);
        assert.equal(r.code, 0, r.stderr);
        const entry = await headless(['--dump-dom', url()]);
        assert.match(entry, /<h2 id="file-name">1_START\.sh<\/h2>/);
        assert.match(entry, /<g class="node script selected" data-id="1_START_sh"/);
        const done = await headless(['--dump-dom', url('#DONE_sh')]);
        assert.match(
          done,
          /<h2 id="file-name">DONE\.sh<\/h2>\s*<p class="kind" id="file-kind">script<\/p>\s*<pre id="file-text">#!\/usr\/bin\/env bash\necho "&lt;result&gt;Tour complete/,
        );
        assert.equal((done.match(/<g class="node script/g) ?? []).length, TOUR_STATES.length);
      },
    );

    it('renders boxes, markers and arrows', needsChromium, async () => {
      const shot = join(box.dir, 'shot.png');
      await headless([`--screenshot=${shot}`, '--window-size=1400,900', url()]);
      const image = decodePng(readFileSync(shot));
      assert.deepEqual([image.width, image.height], [1400, 900]);
      // Fill colours of the page's stylesheet: script boxes, the start marker, the result marker.
      assert.ok(
        countColour(image, '#fff4e0') > TOUR_STATES.length * 2000,
        'seven script boxes are filled',
      );
      assert.ok(countColour(image, '#2d3748') > 500, 'the start marker is drawn');
      assert.ok(countColour(image, '#e6f6ea') > 500, 'the result marker is drawn');
      assert.ok(countColour(image, '#4a5568') > 300, 'arrows are drawn');
    });
  });
});

describe('raymond diagram --win and lint --win', () => {
  const win = () =>
    box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: goto, target: BUILD }\n  - { tag: goto, target: CHECK.ps1 }\n---\nGo on with <goto>BUILD</goto> or <goto>CHECK.ps1</goto>\n',
        'BUILD.bat': '@echo off\r\necho "<result>built</result>"\r\n',
        'CHECK.ps1': 'Write-Output "<goto>BUILD</goto>"\r\n',
      },
      'win',
    );

  it('diagram --win shows the .bat/.ps1 states and resolves NAME to them, as Windows would', async () => {
    const wf = win();
    const r = await box.run(['diagram', '--win', wf]);
    assert.equal(r.code, 0, r.stderr);
    for (const line of [
      'BUILD_bat["BUILD.bat"]',
      'CHECK_ps1["CHECK.ps1"]',
      'START_md -->|goto| BUILD_bat',
      'START_md -->|goto| CHECK_ps1',
      'CHECK_ps1 -->|goto| BUILD_bat',
      'BUILD_bat -->|result| result',
    ]) {
      assert.ok(r.stdout.includes(`  ${line}\n`), `${line} in:\n${r.stdout}`);
    }
    const host = await box.run(['diagram', wf]);
    assert.match(
      host.stdout,
      /missing_1\["BUILD \(missing\)"\]/,
      'without --win, this platform is drawn',
    );
  });

  it('lint --win checks the workflow as Windows runs it', async () => {
    const wf = win();
    const r = await box.run(['lint', '--win', wf]);
    assert.equal(r.code, 0, r.stdout);
    assert.equal(r.stdout, `${wf}: 0 errors, 0 warnings in 3 states\n`);
    assert.equal(
      (await box.run(['lint', wf])).code,
      1,
      'on Linux, BUILD and CHECK.ps1 do not resolve',
    );
  });
});
