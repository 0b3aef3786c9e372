import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';
import { api, startServe, until } from '../helpers/serve.js';

const examples = join(ROOT, 'workflows/examples');

async function asking(url: string): Promise<{ id: string; askId: string }> {
  const id = (await api(`${url}/runs`, 'POST', { workflow_id: 'approval', input: 'rename it' }))
    .body.run_id as string;
  const askId = await until(
    async () => (await api(`${url}/runs/${id}/pending-asks`)).body[0]?.ask_id as string | undefined,
    'the ask',
  );
  return { id, askId };
}

describe('raymond serve: restarts', () => {
  const box = new Sandbox();
  after(() => box.remove());

  it('a server killed with a run asking resumes it at the next start, its ask answerable', async () => {
    const first = await startServe(['--root', examples], box.dir);
    const { id, askId } = await asking(first.url);
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await startServe(['--root', examples], box.dir);
    try {
      assert.match(second.stderr(), /1 run\(s\) resumed/);
      const asks = await until(async () => {
        const r = await api(`${second.url}/runs/${id}/pending-asks`);
        return r.body.length > 0 ? r.body : undefined;
      }, 'the resumed ask');
      assert.equal(asks[0].ask_id, askId);
      assert.equal(
        (await api(`${second.url}/runs/${id}/asks/${askId}`, 'POST', { response: 'approve' }))
          .status,
        200,
      );
      const done = await until(async () => {
        const r = await api(`${second.url}/runs/${id}`);
        return r.body.status === 'completed' ? r.body : undefined;
      }, 'completion');
      assert.match(done.result, /^implemented: rename it/);
    } finally {
      assert.equal(await second.stop(), 0);
    }
    const list = box.run(['serve', 'list']);
    assert.equal((await list).stdout.trim(), id);
  });

  it('--clean moves unfinished runs to abandoned/ instead of resuming them; finished runs stay', async () => {
    const first = await startServe(['--root', examples], box.dir);
    const { id } = await asking(first.url);
    first.proc.kill('SIGKILL');
    await first.exited;
    const second = await startServe(['--root', examples, '--clean'], box.dir);
    try {
      assert.match(second.stderr(), /--clean: moved 1 unfinished run/);
      assert.equal((await api(`${second.url}/runs/${id}`)).status, 404);
      const pool = join(box.dir, '.raymond/serve-state');
      const [stamp] = readdirSync(join(pool, 'abandoned'));
      assert.ok(existsSync(join(pool, 'abandoned', stamp!, `${id}.json`)));
      assert.ok(!existsSync(join(pool, `${id}.json`)));
      // The run completed in the first test is still listed.
      assert.equal(
        (await api(`${second.url}/runs`)).body.filter(
          (r: { status: string }) => r.status === 'completed',
        ).length,
        1,
      );
    } finally {
      await second.stop();
    }
  });

  it('SIGTERM lets a running step finish within its patience, leaves the run resumable, exits 0', async () => {
    const roots = box.write(
      {
        'twostep/START.sh': sh('sleep 0.5', 'echo "<goto>NEXT.sh</goto>"'),
        'twostep/NEXT.sh': sh('echo "<result>next ran</result>"'),
      },
      'roots',
    );
    const first = await startServe(['--root', roots], box.dir);
    const id = (await api(`${first.url}/runs`, 'POST', { workflow_id: 'twostep' })).body
      .run_id as string;
    await until(
      async () =>
        (await api(`${first.url}/runs/${id}`)).body.agents?.[0]?.machine_state === 'invoking',
      'the first step',
    );
    assert.equal(await first.stop(), 0);
    assert.match(first.stderr(), /SIGTERM: no new runs/);
    const second = await startServe(['--root', roots], box.dir);
    try {
      const done = await until(async () => {
        const r = await api(`${second.url}/runs/${id}`);
        return r.body.status === 'completed' ? r.body : undefined;
      }, 'the resumed run');
      assert.equal(done.result, 'next ran');
    } finally {
      await second.stop();
    }
  });

  it('a cancelled run is not resumed at the next start', async () => {
    const first = await startServe(['--root', examples], box.dir);
    const { id } = await asking(first.url);
    assert.equal((await api(`${first.url}/runs/${id}/cancel`, 'POST')).body.status, 'cancelled');
    await first.stop();
    const second = await startServe(['--root', examples], box.dir);
    try {
      assert.equal((await api(`${second.url}/runs/${id}`)).body.status, 'cancelled');
      assert.deepEqual((await api(`${second.url}/runs/${id}/pending-asks`)).body, []);
    } finally {
      await second.stop();
    }
  });

  it("a run resumed after a kill keeps the workflow id it was started as (the manifest's, not its folder's name)", async () => {
    const roots = box.write(
      {
        'folder-name/workflow.yaml': 'id: manifest-id\n',
        'folder-name/START.sh': sh('echo \'<ask next="END.sh">go on?</ask>\''),
        'folder-name/END.sh': sh('echo "<result>went on</result>"'),
      },
      'roots-ids',
    );
    const first = await startServe(['--root', roots], box.dir);
    const id = (await api(`${first.url}/runs`, 'POST', { workflow_id: 'manifest-id' })).body
      .run_id as string;
    await until(
      async () => (await api(`${first.url}/runs/${id}/pending-asks`)).body.length > 0,
      'the ask',
    );
    assert.equal((await api(`${first.url}/runs/${id}`)).body.workflow_id, 'manifest-id');
    first.proc.kill('SIGKILL');
    await first.exited;
    const second = await startServe(['--root', roots], box.dir);
    try {
      assert.equal((await api(`${second.url}/runs/${id}`)).body.workflow_id, 'manifest-id');
      const [ask] = await until(async () => {
        const r = await api(`${second.url}/runs/${id}/pending-asks`);
        return r.body.length > 0 ? r.body : undefined;
      }, 'the resumed ask');
      assert.equal(
        (await api(`${second.url}/runs/${id}/asks/${ask.ask_id}`, 'POST', { response: 'yes' }))
          .status,
        200,
      );
      const done = await until(async () => {
        const r = await api(`${second.url}/runs/${id}`);
        return r.body.status === 'completed' ? r.body : undefined;
      }, 'completion');
      assert.equal(done.workflow_id, 'manifest-id');
    } finally {
      await second.stop();
    }
  });

  it('a cancel racing completion: the API says what the state file says, before and after a restart', async () => {
    // The step marks its task folder 50 ms before it gives its result: cancels sent from then on straddle the run's end.
    const roots = box.write(
      {
        'quick/START.sh': sh(
          'touch "$RAYMOND_TASK_FOLDER/ending"',
          'sleep 0.05',
          'echo "<result>quick</result>"',
        ),
      },
      'roots-race',
    );
    const pool = join(box.dir, '.raymond/serve-state');
    const stateOf = (id: string) =>
      JSON.parse(readFileSync(join(pool, `${id}.json`), 'utf8')).status as string;
    // What the API must say of a run the state file gives `status`: a stopped run is cancelled, one that ended by itself is what it is.
    const expected = (status: string) =>
      ['running', 'paused', 'asking'].includes(status) ? 'cancelled' : status;
    const first = await startServe(['--root', roots], box.dir);
    const runs: Array<{ id: string; cancel: { status: number; body: any } }> = [];
    try {
      // Cancels spread over the end of the step: some stop it, some come as the run completes.
      for (let i = 0; i < 12; i++) {
        const id = (await api(`${first.url}/runs`, 'POST', { workflow_id: 'quick' })).body
          .run_id as string;
        const ending = join(box.dir, '.raymond/tasks', id, 'main/ending');
        for (let n = 0; n < 5000 && !existsSync(ending); n++)
          await new Promise((r) => setTimeout(r, 2));
        await new Promise((r) => setTimeout(r, 40 + i * 4));
        runs.push({ id, cancel: await api(`${first.url}/runs/${id}/cancel`, 'POST') });
      }
      for (const { id, cancel } of runs) {
        const run = (await api(`${first.url}/runs/${id}`)).body;
        assert.equal(run.status, expected(stateOf(id)), `${id}: state file ${stateOf(id)}`);
        if (run.status === 'cancelled')
          assert.deepEqual(cancel.body, { run_id: id, status: 'cancelled' });
        else assert.equal(cancel.status, 409, JSON.stringify(cancel.body));
      }
      // What a cancel that came as the run completed may leave behind: a completed run with the cancel's marker.
      const late = (await api(`${first.url}/runs`, 'POST', { workflow_id: 'quick' })).body
        .run_id as string;
      await until(
        async () => (await api(`${first.url}/runs/${late}`)).body.status === 'completed',
        'the late run',
      );
      writeFileSync(join(pool, `${late}.cancelled`), `${new Date().toISOString()}\n`);
      runs.push({ id: late, cancel: { status: 409, body: {} } });
    } finally {
      await first.stop();
    }
    const second = await startServe(['--root', roots], box.dir);
    try {
      for (const { id } of runs)
        assert.equal(
          (await api(`${second.url}/runs/${id}`)).body.status,
          expected(stateOf(id)),
          `${id} after the restart: state file ${stateOf(id)}`,
        );
      assert.equal((await api(`${second.url}/runs/${runs.at(-1)!.id}`)).body.status, 'completed');
    } finally {
      await second.stop();
    }
  });
});
