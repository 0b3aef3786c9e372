import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, Sandbox } from '../helpers/cli.js';
import { api, readEvents, startServe, until, type ServeProcess } from '../helpers/serve.js';

const box = new Sandbox();
let server: ServeProcess;

before(async () => {
  const roots = box.write(
    { 'guarded/START.md': '---\ntools: [Read]\n---\nLook only <result>ok</result>' },
    'roots',
  );
  const fake = join(box.dir, 'fake');
  mkdirSync(fake);
  writeFileSync(
    join(box.dir, '.raymond/config.toml'),
    `[raymond]\nclaude_bin = ${JSON.stringify(join(ROOT, 'test/fixtures/fake-claude/claude'))}\n`,
  );
  server = await startServe(['--root', roots], box.dir, {
    FAKE_CLAUDE_DIR: fake,
    FAKE_CLAUDE_MODE: 'denied',
  });
});
after(async () => {
  await server?.stop();
  box.remove();
});

describe('raymond serve: denied tool calls', () => {
  it('streams each denial as permission_denied, with the RunEvent for the page, and counts them in the snapshot', async () => {
    const started = await api(`${server.url}/runs`, 'POST', { workflow_id: 'guarded' });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const id = started.body.run_id as string;
    await until(
      async () => (await api(`${server.url}/runs/${id}`)).body.status === 'completed',
      `run ${id} completed`,
    );
    const denied = (await readEvents(`${server.url}/runs/${id}/output`)).filter(
      (e) => e.data.type === 'permission_denied',
    );
    assert.equal(denied.length, 1);
    assert.deepEqual(
      [
        denied[0]!.data.AgentID,
        denied[0]!.data.StateName,
        denied[0]!.data.ToolName,
        denied[0]!.data.Message,
      ],
      ['main', 'START.md', 'Bash', 'Bash(git push)'],
    );
    assert.equal(denied[0]!.data.raymond.type, 'permission.denied');
    const snapshot = await api(`${server.url}/runs/${id}/snapshot`);
    assert.equal(snapshot.body.live.run.denials, 1);
  });
});
