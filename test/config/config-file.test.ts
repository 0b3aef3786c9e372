import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { configTemplate, findConfigFile, readConfigFile } from '../../src/config/config-file.js';
import { RaymondError, formatError } from '../../src/errors.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-config-'));
after(() => rmSync(root, { recursive: true, force: true }));

function file(text: string): string {
  const dir = mkdtempSync(join(root, 'c-'));
  mkdirSync(join(dir, '.raymond'));
  writeFileSync(join(dir, '.raymond', 'config.toml'), text);
  return join(dir, '.raymond', 'config.toml');
}

function refused(text: string): string {
  const path = file(text);
  try {
    readConfigFile(path);
  } catch (err) {
    assert.ok(err instanceof RaymondError && err.code === 'ERR_CONFIG');
    assert.equal(err.file, path);
    return formatError(err);
  }
  assert.fail(`accepted: ${text}`);
}

describe('config file', () => {
  it('reads the [raymond] table', () => {
    assert.deepEqual(readConfigFile(file('[raymond]\nbudget = 2.5\nmodel = "haiku"\nmax_parallel = 3\nno_debug = true\n')), { budget: 2.5, model: 'haiku', max_parallel: 3, no_debug: true });
  });

  it('names the file, the key and what was expected', () => {
    assert.match(refused('[raymond]\ntimeout = 0\n'), /config\.toml: raymond\.timeout = 0: expected a whole number of seconds, 1 or more$/);
    assert.match(refused('[raymond]\nmodle = "opus"\n'), /unknown key raymond\.modle \(known: /);
    assert.match(refused('budget = 3\n'), /unknown section or key "budget": put the options under \[raymond\]/);
    assert.match(refused('[raymond\n'), /not valid TOML: /);
  });

  it('is found walking up from a subfolder, but not past the git root', () => {
    const path = file('[raymond]\n');
    const project = join(path, '..', '..');
    mkdirSync(join(project, 'a', 'b'), { recursive: true });
    assert.equal(findConfigFile(join(project, 'a', 'b')), path);
    mkdirSync(join(project, 'a', '.git'));
    assert.equal(findConfigFile(join(project, 'a', 'b')), undefined);
  });

  it('the template parses to nothing set', () => {
    assert.deepEqual(readConfigFile(file(configTemplate())), {});
  });
});
