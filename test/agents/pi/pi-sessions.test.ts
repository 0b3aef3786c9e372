import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  findPiSession,
  latestPiSession,
  piSessionFolder,
} from '../../../src/agents/pi/pi-sessions.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-pi-sessions-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A fresh pi agent folder and the env that points pi at it. */
function agentDir(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(root, 'agent-'));
  return { dir, env: { PI_CODING_AGENT_DIR: dir } };
}

/** Writes an empty session file, with the given mtime in seconds if any. */
function sessionFile(dir: string, name: string, mtime?: number): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, '{"type":"session","version":3}\n');
  if (mtime !== undefined) utimesSync(file, mtime, mtime);
  return file;
}

describe('piSessionFolder', () => {
  const env = { PI_CODING_AGENT_DIR: '/agent' };
  const cases: Array<[string, string]> = [
    ['/tmp/pi odd.dir:x/sub-dir_1', '--tmp-pi odd.dir-x-sub-dir_1--'],
    ['/tmp/x/y', '--tmp-x-y--'],
    ['/', '----'],
    ['/a\\b', '--a-b--'],
    ['C:\\work\\repo', '--C--work-repo--'],
  ];
  for (const [cwd, name] of cases) {
    it(`mangles ${cwd} as ${name}`, () => {
      assert.equal(piSessionFolder(cwd, {}, env), join('/agent', 'sessions', name));
    });
  }

  it('uses ~/.pi/agent without PI_CODING_AGENT_DIR, or with it empty', () => {
    assert.equal(
      piSessionFolder('/tmp/x', {}, {}),
      join(homedir(), '.pi', 'agent', 'sessions', '--tmp-x--'),
    );
    assert.equal(
      piSessionFolder('/tmp/x', {}, { PI_CODING_AGENT_DIR: '' }),
      join(homedir(), '.pi', 'agent', 'sessions', '--tmp-x--'),
    );
  });

  it('is session_dir when the options give one', () => {
    assert.equal(piSessionFolder('/tmp/x', { session_dir: '/my/sessions' }, env), '/my/sessions');
  });
});

describe('findPiSession', () => {
  const id = '01a2b3c4-0000-7000-8000-000000000001';

  it('finds a session file in any folder of the sessions folder', () => {
    const { dir, env } = agentDir();
    sessionFile(join(dir, 'sessions', '--tmp-a--'), '2025-06-01T10-00-00-000Z_other.jsonl');
    const file = sessionFile(
      join(dir, 'sessions', '--tmp-b--'),
      `2025-06-01T10-00-00-000Z_${id}.jsonl`,
    );
    assert.equal(findPiSession(id, {}, env), file);
    assert.equal(
      findPiSession('other', {}, env),
      join(dir, 'sessions', '--tmp-a--', '2025-06-01T10-00-00-000Z_other.jsonl'),
    );
  });

  it('matches the whole id only', () => {
    const { dir, env } = agentDir();
    sessionFile(join(dir, 'sessions', '--tmp-a--'), `2025_x${id}.jsonl`);
    sessionFile(join(dir, 'sessions', '--tmp-a--'), `2025_${id}.jsonl.bak`);
    assert.equal(findPiSession(id, {}, env), undefined);
  });

  it('gives undefined when no session has the id, or there is no sessions folder', () => {
    const { dir, env } = agentDir();
    assert.equal(findPiSession(id, {}, env), undefined);
    sessionFile(join(dir, 'sessions', '--tmp-a--'), '2025_abc.jsonl');
    writeFileSync(join(dir, 'sessions', `2025_${id}.jsonl`), '');
    assert.equal(
      findPiSession(id, {}, env),
      undefined,
      'a file loose in sessions/ is no folder of it',
    );
  });

  it('looks in session_dir only when it is set', () => {
    const { dir, env } = agentDir();
    sessionFile(join(dir, 'sessions', '--tmp-a--'), `2025_${id}.jsonl`);
    const own = join(root, 'own-sessions');
    assert.equal(findPiSession(id, { session_dir: own }, env), undefined, 'missing session_dir');
    const file = sessionFile(own, `2026_${id}.jsonl`);
    assert.equal(findPiSession(id, { session_dir: own }, env), file);
  });
});

describe('latestPiSession', () => {
  it('gives the id of the newest session file of the directory', () => {
    const { dir, env } = agentDir();
    const folder = join(dir, 'sessions', '--tmp-pi odd.dir-x--');
    sessionFile(folder, '2025-06-01T10-00-00-000Z_old.jsonl', 1_700_000_000);
    sessionFile(folder, '2025-06-01T09-00-00-000Z_newest.jsonl', 1_700_000_200);
    sessionFile(folder, '2025-06-01T11-00-00-000Z_middle.jsonl', 1_700_000_100);
    sessionFile(folder, 'notes.txt', 1_700_000_300);
    assert.equal(latestPiSession('/tmp/pi odd.dir:x', {}, env), 'newest');
  });

  it('takes the id after the last underscore of the file name', () => {
    const { dir, env } = agentDir();
    sessionFile(join(dir, 'sessions', '--tmp-y--'), '2025-06-01T10-00-00-000Z_01a2-b3.jsonl');
    assert.equal(latestPiSession('/tmp/y', {}, env), '01a2-b3');
  });

  it('reads session_dir when it is set', () => {
    const { env } = agentDir();
    const own = mkdtempSync(join(root, 'own-'));
    sessionFile(own, '2025_a.jsonl', 1_700_000_000);
    sessionFile(own, '2025_b.jsonl', 1_700_000_500);
    assert.equal(latestPiSession('/tmp/anything', { session_dir: own }, env), 'b');
  });

  it('gives undefined for a missing or empty folder', () => {
    const { dir, env } = agentDir();
    assert.equal(latestPiSession('/tmp/none', {}, env), undefined);
    mkdirSync(join(dir, 'sessions', '--tmp-empty--'), { recursive: true });
    assert.equal(latestPiSession('/tmp/empty', {}, env), undefined);
    assert.equal(latestPiSession('/tmp/x', { session_dir: join(root, 'nowhere') }, env), undefined);
  });
});
