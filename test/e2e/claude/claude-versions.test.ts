import assert from 'node:assert/strict';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
after(() => box.stop());

/** The oldest Claude Code Raymond supports, installed once into node_modules' cache (not a dependency: both would be `claude`). */
const OLDEST = '2.1.197';
const prefix = join(ROOT, 'node_modules', '.cache', `claude-code-${OLDEST}`);
const oldest = join(prefix, 'node_modules', '.bin', 'claude');
let unavailable: string | undefined;

before(async () => {
  await box.start();
  if (existsSync(oldest)) return;
  const r = await execa(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-audit',
      '--no-fund',
      `@anthropic-ai/claude-code@${OLDEST}`,
    ],
    { reject: false, timeout: 300_000, stdin: 'ignore' },
  );
  if (r.exitCode !== 0 || !existsSync(oldest))
    unavailable = `Claude Code ${OLDEST} could not be installed from the registry: ${String(r.stderr).split('\n')[0]}`;
});

/** A <call> into a child, a return, a <goto>: every resumed kind of turn. */
function callWorkflow(name: string): string {
  const s = box.server;
  s.on(`${name}-CALLER`, { text: 'caller-mark <call return="BACK">CHILD</call>' });
  s.on(`${name}-CHILD`, (r) => ({
    text: `<result>${r.transcript.includes('caller-mark') ? 'saw the caller' : 'blind'}</result>`,
  }));
  s.on(`${name}-BACK`, { text: '<goto>END</goto>' });
  s.on(`${name}-END`, { text: '<result>all done</result>' });
  return box.write(
    {
      'START.md': `${name}-CALLER`,
      'CHILD.md': `${name}-CHILD`,
      'BACK.md': `${name}-BACK {{result}}`,
      'END.md': `${name}-END`,
    },
    name,
  );
}

describe('Claude Code versions: a flag is passed only to a Claude Code that has it', () => {
  it(`a <call> workflow runs on Claude Code ${OLDEST}, which has no --system-prompt-snapshot`, async (t) => {
    if (unavailable) return t.skip(unavailable);
    const wf = callWorkflow('OLDCC');
    const r = await box.run([wf, '--json', '--workflow-id', 'oldcc', '--claude-bin', oldest]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'all done');
    assert.doesNotMatch(r.stderr, /unknown option/);
  });

  it('the same workflow runs on the current Claude Code, with the snapshot off on resumed turns', async () => {
    const wf = callWorkflow('NEWCC');
    const r = await box.run([wf, '--json', '--workflow-id', 'newcc']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'all done');
  });

  it('a Claude Code older than the oldest supported is one line, before any state runs', async () => {
    const bin = join(box.dir, 'ancient-claude');
    writeFileSync(
      bin,
      '#!/bin/sh\n[ "$1" = --version ] && echo "1.0.3 (Claude Code)" && exit 0\necho "--help text"\n',
    );
    chmodSync(bin, 0o755);
    const wf = box.write({ 'START.md': 'ANCIENT never sent <result>x</result>' }, 'ancient');
    const r = await box.run([wf, '--workflow-id', 'ancient', '--claude-bin', bin]);
    assert.equal(r.code, 64, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^raymond: Claude Code 1\\.0\\.3 \\(.*ancient-claude\\) is older than ${OLDEST.replace(/\./g, '\\.')}, the oldest Raymond runs on`,
      ),
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(!existsSync(join(box.dir, '.raymond/state/ancient.json')), 'nothing written');
    assert.equal(box.server.requestsFor('ANCIENT').length, 0);
  });
});
