import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isInside } from '../../src/scope/contained-file.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { commitAll, passesToTest, testEnvironment } from '../../src/testing/test-sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-sandbox-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('test sandbox', () => {
  it('passes only the allow-listed variables of its own environment; every other one is unset', () => {
    const env = testEnvironment(
      { home: '/h', url: 'http://127.0.0.1:9', scratch: dir, tmp: '/t' },
      { PATH: '/bin', LC_ALL: 'C', GITHUB_TOKEN: 'x', SSH_AUTH_SOCK: '/s', XDG_CONFIG_HOME: '/c' },
    );
    assert.ok(!('PATH' in env) && !('LC_ALL' in env), 'allowed ones are inherited, not overridden');
    for (const name of ['GITHUB_TOKEN', 'SSH_AUTH_SOCK', 'XDG_CONFIG_HOME'])
      assert.ok(name in env && env[name] === undefined, name);
    assert.ok(passesToTest('LC_CTYPE') && passesToTest('TZ') && !passesToTest('NPM_TOKEN'));
  });
  it("gives the agent CLIs the test's home and the scripted model only, removing every other way to an API", () => {
    const env = testEnvironment({
      home: '/h',
      url: 'http://127.0.0.1:9',
      scratch: dir,
      tmp: '/t',
      own: { HOME: '/mine', ANTHROPIC_BASE_URL: 'https://elsewhere', MINE: '1' },
    });
    assert.equal(env.HOME, '/h');
    assert.equal(env.ANTHROPIC_BASE_URL, 'http://127.0.0.1:9');
    assert.equal(env.MINE, '1');
    for (const name of [
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
      'CLAUDE_CONFIG_DIR',
    ])
      assert.ok(name in env && env[name] === undefined, name);
    assert.equal(env.PI_CODING_AGENT_DIR, join(dir, 'pi-agent'));
    assert.equal(env.TMPDIR, '/t');
  });
  it("points pi's test provider and its anthropic provider at the scripted model, with the step header read from the environment", () => {
    const agent = testEnvironment({
      home: '/h',
      url: 'http://127.0.0.1:9',
      scratch: dir,
      tmp: '/t',
    }).PI_CODING_AGENT_DIR!;
    const models = JSON.parse(readFileSync(join(agent, 'models.json'), 'utf8'));
    assert.equal(models.providers['raymond-test'].baseUrl, 'http://127.0.0.1:9');
    assert.deepEqual(models.providers.anthropic, {
      baseUrl: 'http://127.0.0.1:9',
      headers: { 'x-raymond-step': 'RAYMOND_TEST_STEP' },
    });
    assert.equal(
      JSON.parse(readFileSync(join(agent, 'settings.json'), 'utf8')).defaultProvider,
      'raymond-test',
    );
  });
  it('tells paths inside a folder from paths that leave it', () => {
    assert.deepEqual(
      ['/w', '/w/a/b', '/w/../x', '/wx', '/'].map((p) => isInside('/w', p)),
      [true, true, false, false, false],
    );
  });
  it('makes a git repository whose one commit has the same id every time', () => {
    const ids = ['one', 'two'].map((name) => {
      const work = join(dir, name);
      mkdirSync(work);
      writeFileSync(join(work, 'a.txt'), 'a\n');
      commitAll(work);
      return execFileSync('git', ['rev-parse', 'main'], { cwd: work, encoding: 'utf8' }).trim();
    });
    assert.match(ids[0]!, /^[0-9a-f]{40}$/);
    assert.equal(ids[1], ids[0]);
  });
});
