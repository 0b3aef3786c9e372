import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { putAgent, putResult, storeFromState } from '../../machines/run-store.js';
import { expandState, type WrittenState } from '../../machines/written-agent.js';
import { AGENTS_PER_PIECE } from '../../src/state/journal.js';
import { snapshotParts, writeAtomically } from '../../src/state/snapshot-write.js';
import { freshState } from '../helpers/fake-actors.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-snapshot-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('snapshot write', () => {
  it('writes a state of many agents in pieces, one agent per line, that reads back whole', () => {
    const store = storeFromState(freshState());
    const n = AGENTS_PER_PIECE * 2 + 7;
    for (let i = 1; i <= n; i++) {
      const id = `main_w${i}`;
      putAgent(store, {
        ...store.agents.get('main')!,
        id,
        status: 'terminated',
        result: String(i),
        parent: 'main',
        attributes: { i: String(i) },
        next_session: `s${i}`,
      });
      putResult(store, id, String(i));
    }
    const parts = snapshotParts(store);
    assert.equal(parts.length, 1 + 3 + 1, 'a head, three pieces of agents, a tail');
    const text = parts.join('');
    assert.equal(text.split('\n').filter((l) => l.includes('"id":"main_w')).length, n);
    const read = expandState(JSON.parse(text) as WrittenState);
    assert.equal(read.agents.length, n + 1);
    const w2 = read.agents.find((a) => a.id === 'main_w2')!;
    assert.equal(w2.result, '2', 'the result comes back from results');
    assert.equal(w2.next_session, undefined, 'a terminated agent keeps no reserved session');
    assert.deepEqual(w2.attributes, { i: '2' });
    assert.ok(!text.includes('"next_session"'));
  });

  it('a state of no agents is valid JSON too', () => {
    const store = storeFromState({ ...freshState(), agents: [] });
    assert.deepEqual((JSON.parse(snapshotParts(store).join('')) as WrittenState).agents, []);
  });

  it('replaces the file atomically and leaves no temporary file, even when the write fails', async () => {
    const path = join(dir, 'run.json');
    writeFileSync(path, 'old');
    await writeAtomically(path, ['{"a":', '1}\n']);
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n');
    const folder = join(dir, 'folder.json');
    mkdirSync(folder);
    await assert.rejects(writeAtomically(folder, ['x']));
    assert.deepEqual(readdirSync(dir).sort(), ['folder.json', 'run.json']);
  });
});
