import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT } from '../helpers/cli.js';

/**
 * Runs a small program against the built link in a process of its own, where
 * nothing else keeps the event loop alive: an unreferenced spawner would let
 * that process end, with code 0, before close() resolves.
 */
const PROGRAM = `
const { startSpawner } = await import(${JSON.stringify(join(ROOT, 'dist/src/executors/spawner-link.js'))});
const link = startSpawner({ flags: [], onReady() {}, onReply() {}, onExit() {} });
link.setBusy(false);
const closing = link.close();
// A step that ends while the pool closes (an aborted one) makes the pool mark its spawner idle.
link.setBusy(false);
await closing;
console.log('closed');
`;

describe('spawner link', () => {
  it('close() keeps the spawner referenced until it has exited, whatever is marked idle meanwhile', async () => {
    const r = await execa(process.execPath, ['--input-type=module', '-e', PROGRAM], {
      reject: false,
      timeout: 20_000,
    });
    assert.equal(r.stdout.trim(), 'closed', `exit ${r.exitCode}: ${r.stderr}`);
    assert.equal(r.exitCode, 0);
  });
});
