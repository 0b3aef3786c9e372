import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandName } from '../../src/cli/program-name.js';

describe('commandName', () => {
  it('is ray when Raymond was started as ray, by a bin link or a file named ray.js', () => {
    assert.equal(commandName('/usr/local/bin/ray'), 'ray');
    assert.equal(commandName('/tmp/x/ray.js'), 'ray');
  });

  it('is raymond otherwise: the raymond link, the built main.js, an empty argv[1]', () => {
    assert.equal(commandName('/usr/local/bin/raymond'), 'raymond');
    assert.equal(commandName('/repo/dist/src/cli/main.js'), 'raymond');
    assert.equal(commandName(''), 'raymond');
    assert.equal(commandName('/bin/rayx'), 'raymond');
  });
});
