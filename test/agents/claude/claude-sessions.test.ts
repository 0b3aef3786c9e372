import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { projectFolderName, transcriptPath } from '../../../src/agents/claude/claude-sessions.js';

describe('projectFolderName (as Claude Code 2.1.330 names them)', () => {
  const cases: Array<[string, string]> = [
    ['/tmp/expsess/enc/My.Dir_x-y z/Sub.DIR', '-tmp-expsess-enc-My-Dir-x-y-z-Sub-DIR'],
    // An emoji is two UTF-16 units: two dashes.
    ['/tmp/expsess/enc/e😀x', '-tmp-expsess-enc-e--x'],
    ['/home/ray/project', '-home-ray-project'],
    ['/srv/été', '-srv--t-'],
    ['/', '-'],
  ];
  for (const [cwd, want] of cases) {
    it(`${cwd} -> ${want}`, () => assert.equal(projectFolderName(cwd), want));
  }

  it('keeps a name of exactly 200 characters whole', () => {
    const cwd = `/${'a'.repeat(199)}`;
    assert.equal(projectFolderName(cwd), `-${'a'.repeat(199)}`);
  });

  it('cuts a longer name at 200 characters and adds a base-36 hash of the whole path', () => {
    const cwd = `/tmp/expsess/long/${'Ab.c/'.repeat(60)}`.slice(0, 259);
    assert.equal(cwd.length, 259);
    const name = projectFolderName(cwd);
    const encoded = `-tmp-expsess-long-${'Ab-c-'.repeat(60)}`.slice(0, 200);
    assert.ok(name.startsWith(`${encoded}-`), name);
    const hash = name.slice(201);
    assert.match(hash, /^[0-9a-z]+$/);
    assert.equal(name.length, 207, '200 + "-" + 6 hash characters');
    // The same Java-style string hash Claude Code uses, pinned.
    assert.equal(hash, 'vmj36z');
  });

  it('tells apart long paths that share their first 200 characters', () => {
    const base = `/${'x'.repeat(250)}`;
    const a = projectFolderName(`${base}/a`);
    const b = projectFolderName(`${base}/b`);
    assert.equal(a.slice(0, 201), b.slice(0, 201));
    assert.notEqual(a, b);
    assert.equal(projectFolderName(`${base}/a`), a, 'the same path gets the same name');
  });
});

describe('transcriptPath', () => {
  it('is under CLAUDE_CONFIG_DIR from the env it is given', () => {
    assert.equal(
      transcriptPath('/srv/my.repo', 'sess-1', { CLAUDE_CONFIG_DIR: '/opt/claude-conf' }),
      '/opt/claude-conf/projects/-srv-my-repo/sess-1.jsonl',
    );
  });

  it('is under ~/.claude without CLAUDE_CONFIG_DIR, or with an empty one', () => {
    const want = join(homedir(), '.claude', 'projects', '-srv-repo', 'abc.jsonl');
    assert.equal(transcriptPath('/srv/repo', 'abc', {}), want);
    assert.equal(transcriptPath('/srv/repo', 'abc', { CLAUDE_CONFIG_DIR: '' }), want);
  });
});
