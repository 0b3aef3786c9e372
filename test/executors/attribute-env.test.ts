import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ATTRIBUTE_ENV_PREFIX,
  attributeEnvironment,
  exportedAsIs,
} from '../../src/executors/attribute-env.js';

describe('fork attributes in the environment', () => {
  it('passes lower-case names as written', () => {
    for (const name of ['item', 'priority', 'task_2', '_x', '__proto__', 'constructor'])
      assert.equal(exportedAsIs(name, 'linux'), true, name);
  });

  it('never passes a name a shell, loader or runtime reads', () => {
    const read = [
      'BASH_ENV',
      'ENV',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'PATH',
      'IFS',
      'SHELLOPTS',
      'BASHOPTS',
      'NODE_OPTIONS',
      'PYTHONSTARTUP',
      'PERL5OPT',
      'GIT_SSH_COMMAND',
      'DYLD_INSERT_LIBRARIES',
      'RAYMOND_AGENT_ID',
    ];
    const lowerReadByTools = [
      'http_proxy',
      'https_proxy',
      'all_proxy',
      'no_proxy',
      'npm_config_script_shell',
      'pnpm_config_x',
      'yarn_registry',
      'yarn_strict_ssl',
      'yarn_',
    ];
    const other = ['Item', 'toString', 'a.b', 'a-b', '9lives'];
    for (const name of [...read, ...lowerReadByTools, ...other])
      assert.equal(exportedAsIs(name, 'linux'), false, name);
  });

  it('passes nothing as written on Windows, where names are case-insensitive', () => {
    assert.equal(exportedAsIs('item', 'win32'), false);
    assert.equal(exportedAsIs('path', 'win32'), false);
  });

  it('gives every attribute a prefixed variable, and safe names their own', () => {
    const attrs = Object.fromEntries([
      ['item', 'a'],
      ['BASH_ENV', '/p.sh'],
      ['__proto__', 'p'],
    ]);
    const env = attributeEnvironment(attrs, 'linux');
    assert.deepEqual(
      { ...env },
      {
        RAYMOND_ATTR_item: 'a',
        item: 'a',
        RAYMOND_ATTR_BASH_ENV: '/p.sh',
        RAYMOND_ATTR___proto__: 'p',
        ['__proto__']: 'p',
      },
    );
    assert.equal(Object.hasOwn(env, 'BASH_ENV'), false);
    assert.deepEqual(
      { ...attributeEnvironment(attrs, 'win32') },
      { RAYMOND_ATTR_item: 'a', RAYMOND_ATTR_BASH_ENV: '/p.sh', RAYMOND_ATTR___proto__: 'p' },
    );
    assert.equal(ATTRIBUTE_ENV_PREFIX, 'RAYMOND_ATTR_');
  });
});
