import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ANSWER_ASK, CREATE_RUN, jsonSchemaOf } from '../../src/serve/request-schemas.js';
import { API_ROUTES } from '../../src/serve/route-table.js';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';
import { api, readEvents, startServe, until, type ServeProcess } from '../helpers/serve.js';

const box = new Sandbox();
let server: ServeProcess;
let roots: string;

before(async () => {
  roots = box.write(
    {
      // Asks for a file in a slot; the answered state reads it from its ask's folder.
      'upload/START.sh': sh(
        'echo shown > "$RAYMOND_TASK_FOLDER/report.txt"',
        'echo \'<ask next="READ.sh" upload_slots="note.txt" display_files="report.txt:Report.txt">Upload a note</ask>\'',
      ),
      'upload/READ.sh': sh(
        'echo "<result>$RAYMOND_INPUT / $(cat "$RAYMOND_TASK_FOLDER/asks/$RAYMOND_ASK_ID/note.txt")</result>"',
      ),
      // Asks for any files; the answered state lists what its ask's folder holds.
      'bucket/START.sh': sh(
        'echo \'<ask next="LIST.sh" upload_bucket="true">Upload anything</ask>\'',
      ),
      'bucket/LIST.sh': sh(
        'echo "<result>$RAYMOND_INPUT: $(ls "$RAYMOND_TASK_FOLDER/asks/$RAYMOND_ASK_ID" | tr \'\\n\' \' \')</result>"',
      ),
      'fails/START.sh': sh('echo broken >&2', 'exit 3'),
      'slow/START.sh': sh('sleep 0.3', 'echo "<result>slow done</result>"'),
      'noinput/workflow.yaml': 'id: quiet\ninput:\n  mode: none\n',
      'noinput/START.sh': sh('echo "<result>ok</result>"'),
      'on-codex/workflow.yaml': 'backend: codex\n',
      'on-codex/START.sh': sh('echo "<result>ok</result>"'),
      // A workflow on Claude Code (it names no backend) that calls the one on Codex.
      'calls-codex/START.sh': sh(
        'echo \'<call-workflow return="DONE.sh">../on-codex/</call-workflow>\'',
      ),
      'calls-codex/DONE.sh': sh('echo "<result>called: $RAYMOND_INPUT</result>"'),
      'notes.txt': 'not a workflow',
    },
    'roots',
  );
  server = await startServe(['--root', roots, '--root', join(ROOT, 'workflows/examples')], box.dir);
});
after(async () => {
  await server?.stop();
  box.remove();
});

async function waitFor(runId: string, status: string) {
  return until(async () => {
    const r = await api(`${server.url}/runs/${runId}`);
    return r.body.status === status ? r.body : undefined;
  }, `run ${runId} ${status}`);
}

describe('raymond serve: workflows', () => {
  it('lists the workflows of every root, with manifests and without, and refuses an unknown one', async () => {
    const list = await api(`${server.url}/workflows`);
    assert.equal(list.status, 200);
    const ids = list.body.map((w: { id: string }) => w.id);
    for (const id of ['approval', 'upload', 'fails', 'slow', 'quiet', 'tour'])
      assert.ok(ids.includes(id), `${id} in ${ids}`);
    assert.ok(!ids.includes('notes'));
    const approval = await api(`${server.url}/workflows/approval`);
    assert.deepEqual(approval.body, {
      id: 'approval',
      name: 'Plan approval',
      description:
        'Writes a plan for a change, waits until a person approves it, then carries it out.',
      input: {
        mode: 'required',
        label: 'Change',
        description: 'The change to plan, in one sentence.',
      },
      default_budget: 1,
      requires_human_input: true,
      backend: 'claude',
    });
    assert.equal((await api(`${server.url}/workflows/on-codex`)).body.backend, 'codex');
    const missing = await api(`${server.url}/workflows/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'workflow_not_found');
  });

  it('rescans the roots on request', async () => {
    box.write({ 'later/START.sh': sh('echo "<result>later</result>"') }, 'roots');
    assert.equal((await api(`${server.url}/workflows/later`)).status, 404);
    const r = await api(`${server.url}/workflows/rescan`, 'POST');
    assert.equal(r.status, 200);
    assert.ok(r.body.some((w: { id: string }) => w.id === 'later'));
  });

  it('checks input modes, budgets and models before starting anything', async () => {
    assert.equal(
      (await api(`${server.url}/runs`, 'POST', { workflow_id: 'approval' })).body.code,
      'input_required',
    );
    assert.equal(
      (await api(`${server.url}/runs`, 'POST', { workflow_id: 'quiet', input: 'x' })).body.code,
      'input_not_accepted',
    );
    assert.equal(
      (await api(`${server.url}/runs`, 'POST', { workflow_id: 'slow', budget: -1 })).status,
      400,
    );
    assert.equal(
      (await api(`${server.url}/runs`, 'POST', { workflow_id: 'slow', model: 'gpt' })).status,
      400,
    );
    assert.equal((await api(`${server.url}/runs`, 'POST', { workflow_id: 'nope' })).status, 404);
    // Model and effort are the workflow's backend's: Codex's `max` is not Claude Code's.
    const effort = await api(`${server.url}/runs`, 'POST', { workflow_id: 'slow', effort: 'max' });
    assert.equal(effort.status, 400);
    assert.equal(
      effort.body.error,
      'effort: effort "max" is not one of low, medium, high (this workflow runs on Claude Code)',
    );
    const model = await api(`${server.url}/runs`, 'POST', {
      workflow_id: 'on-codex',
      model: 'gpt 6',
    });
    assert.equal(
      model.body.error,
      'model: model "gpt 6" is not a codex model name (this workflow runs on Codex)',
    );
    // A run may use the backends of the workflows it calls: Codex's `max` is taken by a Claude workflow that calls a Codex one.
    const called = await api(`${server.url}/runs`, 'POST', {
      workflow_id: 'calls-codex',
      effort: 'max',
    });
    assert.equal(called.status, 201);
    assert.equal((await waitFor(called.body.run_id, 'completed')).result, 'called: ok');
    assert.equal((await api(`${server.url}/runs`, 'POST', '{not json')).body.code, 'invalid_json');
  });

  it('refuses a body its schema does not fit with a 400 naming the field, and starts nothing', async () => {
    const before = (await api(`${server.url}/runs`)).body.length;
    const cases: Array<[unknown, string]> = [
      [{}, 'invalid request body: workflow_id is missing; it must be a non-empty string'],
      [{ workflow_id: 7 }, 'invalid request body: workflow_id is 7; it must be a non-empty string'],
      [
        { workflow_id: 'slow', budget: -1 },
        'invalid request body: budget is -1; it must be a number of USD, 0 or more or null',
      ],
      [
        { workflow_id: 'slow', budget: '2' },
        'invalid request body: budget is "2"; it must be a number of USD, 0 or more or null',
      ],
      [
        { workflow_id: 'slow', input: ['a'] },
        'invalid request body: input is ["a"]; it must be a string or null',
      ],
      [
        { workflow_id: 'slow', environment: { 'NOT A NAME': 'x' } },
        'invalid request body: environment is {"NOT A NAME":"x"}; it must be an object of variable names to strings',
      ],
      [
        { workflow_id: 'slow', environment: { A: 1 } },
        'invalid request body: environment is {"A":1}; it must be an object of variable names to strings',
      ],
    ];
    for (const [body, error] of cases) {
      const r = await api(`${server.url}/runs`, 'POST', body);
      assert.deepEqual(
        [r.status, r.body],
        [400, { error, code: 'bad_request' }],
        JSON.stringify(body),
      );
    }
    assert.equal((await api(`${server.url}/runs`)).body.length, before);
  });
});

describe('raymond serve: the approval package, answered with JSON', () => {
  it('runs, asks, takes the answer, completes; its events resume after Last-Event-ID', async () => {
    const start = await api(`${server.url}/runs`, 'POST', {
      workflow_id: 'approval',
      input: 'rename the loader',
    });
    assert.equal(start.status, 201, JSON.stringify(start.body));
    const id = start.body.run_id as string;
    assert.match(id, /^approval-[0-9a-f]{8}$/);
    await waitFor(id, 'asking');
    const asks = await api(`${server.url}/runs/${id}/pending-asks`);
    assert.equal(asks.body.length, 1);
    assert.match(asks.body[0].prompt, /Reply approve/);
    // Task folders of the server's runs are the project's, beside serve-state, not in a .raymond inside .raymond.
    assert.ok(
      asks.body[0].prompt.includes(join(box.dir, '.raymond/tasks', id, 'main/plan.md')),
      asks.body[0].prompt,
    );
    assert.ok(existsSync(join(box.dir, '.raymond/tasks', id, 'main/plan.md')));
    assert.ok(!existsSync(join(box.dir, '.raymond/.raymond')));
    const snapshot = await api(`${server.url}/runs/${id}/snapshot`);
    assert.equal(snapshot.body.pending_asks[0].ask_id, asks.body[0].ask_id);
    assert.equal(snapshot.body.run.agents[0].machine_state, 'asking');
    // `live`: the same run as the web page reads it, up to the same last event.
    const live = snapshot.body.live;
    assert.equal(live.seq, snapshot.body.last_event_id);
    assert.deepEqual(
      { ...live.run, startedAt: 0 },
      {
        id,
        name: 'approval',
        status: 'running',
        costUsd: 0,
        budgetUsd: 1,
        startedAt: 0,
        steps: 1,
        denials: 0,
      },
    );
    assert.deepEqual(live.agents, [
      { id: 'main', machine: 'asking', state: '1_START.sh', depth: 0, costUsd: 0 },
    ]);
    assert.equal(live.asks[0].id, asks.body[0].ask_id);
    assert.deepEqual(
      live.recent.map((r: { event: { type: string } }) => r.event.type),
      ['run.started', 'ask.created', 'step.done'],
    );
    const svg = await fetch(`${server.url}/runs/${id}/diagram.svg`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    assert.match(
      await svg.text(),
      /<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>\n<style>[\s\S]*\.node\.script rect[\s\S]*DECIDE/,
    );

    const answered = await api(`${server.url}/runs/${id}/asks/${asks.body[0].ask_id}`, 'POST', {
      response: 'approve',
    });
    assert.deepEqual(answered.body, { run_id: id, ask_id: asks.body[0].ask_id, status: 'resumed' });
    const again = await api(`${server.url}/runs/${id}/asks/${asks.body[0].ask_id}`, 'POST', {
      response: 'approve',
    });
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'input_not_pending');
    const done = await waitFor(id, 'completed');
    assert.match(done.result, /^implemented: rename the loader/);
    assert.equal(done.agents[0].machine_state, 'terminated');

    // The whole stream, then the same stream after its 4th event: the rest, nothing lost or repeated.
    const all = await readEvents(`${server.url}/runs/${id}/output`);
    assert.deepEqual(
      all.map((e) => e.id),
      all.map((_, i) => i + 1),
    );
    const types = all.map((e) => e.data.type);
    for (const t of [
      'workflow_started',
      'state_started',
      'agent_ask_started',
      'agent_ask_resolved',
      'agent_terminated',
      'workflow_completed',
    ])
      assert.ok(types.includes(t), `${t} in ${types.join(', ')}`);
    assert.equal(all.at(-1)!.data.type, 'workflow_completed');
    assert.equal(all[0]!.data.raymond.type, 'run.started');
    const rest = await readEvents(`${server.url}/runs/${id}/output`, { 'Last-Event-ID': '4' });
    assert.deepEqual(rest, all.slice(4));
    assert.ok(
      (await api(`${server.url}/runs`)).body.some((r: { run_id: string }) => r.run_id === id),
    );
    // The page's poll: no agents (a fan-out has thousands), their number instead.
    const summary = (await api(`${server.url}/runs?summary=true`)).body.find(
      (r: { run_id: string }) => r.run_id === id,
    );
    assert.equal(summary.agents, undefined);
    assert.equal(summary.agent_count, 1);
    assert.equal(summary.status, 'completed');
  });
});

describe('raymond serve: asks with files', () => {
  it('stages display files, takes a multipart upload the answered state reads, and serves files safely', async () => {
    const id = (await api(`${server.url}/runs`, 'POST', { workflow_id: 'upload' })).body
      .run_id as string;
    await waitFor(id, 'asking');
    const [ask] = (await api(`${server.url}/runs/${id}/pending-asks`)).body;
    assert.deepEqual(ask.file_affordance, {
      mode: 'slot',
      slots: [{ name: 'note.txt' }],
      display_files: [{ source_path: 'report.txt', display_name: 'Report.txt' }],
    });
    assert.deepEqual(ask.staged_files, [
      { name: 'Report.txt', size: 6, content_type: 'text/plain', source: 'display' },
    ]);
    const file = await fetch(
      `${server.url}/runs/${id}/asks/${ask.ask_id}/files/Report.txt?disposition=inline`,
    );
    assert.equal(await file.text(), 'shown\n');
    assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(file.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    assert.match(file.headers.get('content-disposition')!, /^attachment;/);
    const escape = await api(
      `${server.url}/runs/${id}/asks/${ask.ask_id}/files/..%2F..%2F..%2Fstate%2Fx.json`,
    );
    assert.equal(escape.status, 400);
    assert.equal(escape.body.code, 'path_escape');

    const wrong = new FormData();
    wrong.set('response', 'here');
    wrong.set('other.txt', new Blob(['x']), 'other.txt');
    const refused = await fetch(`${server.url}/runs/${id}/asks/${ask.ask_id}`, {
      method: 'POST',
      body: wrong,
    });
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as { constraint: string }).constraint, 'slot_extra');

    // JSON carries no file: it cannot skip a required slot.
    const skipped = await api(`${server.url}/runs/${id}/asks/${ask.ask_id}`, 'POST', {
      response: 'no file',
    });
    assert.equal(skipped.status, 400);
    assert.equal(skipped.body.constraint, 'slot_missing');
    assert.equal((await api(`${server.url}/runs/${id}/pending-asks`)).body.length, 1);

    const form = new FormData();
    form.set('response', 'here it is');
    form.set('note.txt', new Blob(['uploaded words']), 'whatever.txt');
    const up = await fetch(`${server.url}/runs/${id}/asks/${ask.ask_id}`, {
      method: 'POST',
      body: form,
    });
    assert.equal(up.status, 200, await up.clone().text());
    const done = await waitFor(id, 'completed');
    assert.equal(done.result, 'here it is / uploaded words');
    const files = await api(`${server.url}/runs/${id}/asks/${ask.ask_id}/files`);
    assert.deepEqual(
      files.body.map((f: { name: string; source: string }) => `${f.name}:${f.source}`),
      ['Report.txt:display', 'note.txt:upload'],
    );
  });
});

describe('raymond serve: answers racing each other', () => {
  it('of two answers with files sent at once, exactly one commits: the other is refused and leaves nothing behind', async () => {
    for (let round = 0; round < 5; round++) {
      const id = (await api(`${server.url}/runs`, 'POST', { workflow_id: 'bucket' })).body
        .run_id as string;
      await waitFor(id, 'asking');
      const [ask] = (await api(`${server.url}/runs/${id}/pending-asks`)).body;
      const answer = (name: string) => {
        const form = new FormData();
        form.set('response', name);
        form.set('file', new Blob([`${name} bytes`]), `${name}.txt`);
        return fetch(`${server.url}/runs/${id}/asks/${ask.ask_id}`, {
          method: 'POST',
          body: form,
        }).then(async (r) => ({
          name,
          status: r.status,
          body: (await r.json()) as { code?: string },
        }));
      };
      const answers = await Promise.all([answer('a'), answer('b')]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 404], JSON.stringify(answers));
      const winner = answers.find((a) => a.status === 200)!.name;
      assert.equal(answers.find((a) => a.status === 404)!.body.code, 'input_not_pending');
      const done = await waitFor(id, 'completed');
      assert.equal(done.result, `${winner}: ${winner}.txt `);
      const files = await api(`${server.url}/runs/${id}/asks/${ask.ask_id}/files`);
      assert.deepEqual(
        files.body.map((f: { name: string }) => f.name),
        [`${winner}.txt`],
      );
      const folder = join(box.dir, '.raymond/tasks', id, 'main/asks', ask.ask_id);
      assert.deepEqual(
        readdirSync(folder).filter((n) => !n.startsWith('.')),
        [`${winner}.txt`],
      );
    }
  });
});

describe('raymond serve: runs side by side', () => {
  it('a failing run does not disturb another; cancel stops a run', async () => {
    const bad = (await api(`${server.url}/runs`, 'POST', { workflow_id: 'fails' })).body
      .run_id as string;
    const good = (await api(`${server.url}/runs`, 'POST', { workflow_id: 'slow' })).body
      .run_id as string;
    const failed = await waitFor(bad, 'failed');
    assert.match(failed.error, /exit(ed)? (code )?3|broken/);
    assert.equal((await waitFor(good, 'completed')).result, 'slow done');

    const approval = (
      await api(`${server.url}/runs`, 'POST', { workflow_id: 'approval', input: 'x' })
    ).body.run_id as string;
    await waitFor(approval, 'asking');
    const cancelled = await api(`${server.url}/runs/${approval}/cancel`, 'POST');
    assert.deepEqual(cancelled.body, { run_id: approval, status: 'cancelled' });
    assert.equal((await api(`${server.url}/runs/${approval}/cancel`, 'POST')).status, 409);
    const events = await readEvents(`${server.url}/runs/${approval}/output`);
    assert.equal(events.at(-1)!.data.type, 'workflow_cancelled');
  });

  it('refuses an oversized body and an unknown endpoint with JSON', async () => {
    const big = await api(
      `${server.url}/runs`,
      'POST',
      JSON.stringify({ workflow_id: 'slow', input: 'x'.repeat(2 * 2 ** 20) }),
    );
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'body_too_large');
    const unknown = await api(`${server.url}/nowhere`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'not_found');
  });
});

describe('raymond serve: /openapi.json', () => {
  it('describes every route the server has, and only those', async () => {
    const doc = (await api(`${server.url}/openapi.json`)).body;
    assert.equal(doc.openapi, '3.1.0');
    const described = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const served = [
      ...API_ROUTES.map((r) => `${r.method} ${r.path}`),
      'GET /openapi.json',
      'POST /login',
      'GET /',
      'POST /mcp',
      'GET /mcp',
      'DELETE /mcp',
    ].sort();
    assert.deepEqual(described, served);
    // The serve page's API section names every route too.
    const readme = readFileSync(join(ROOT, 'docs/serve.md'), 'utf8');
    for (const r of API_ROUTES)
      assert.ok(
        readme.includes(`${r.method} ${r.path}`),
        `docs/serve.md mentions ${r.method} ${r.path}`,
      );
  });

  it('describes the request bodies with the schemas the routes check them with', async () => {
    const doc = (await api(`${server.url}/openapi.json`)).body;
    const bodyOf = (path: string) =>
      doc.paths[path].post.requestBody.content['application/json'].schema as { $ref: string };
    const resolve = (ref: { $ref: string }) =>
      doc.components.schemas[ref.$ref.replace('#/components/schemas/', '')] as unknown;
    assert.deepEqual(resolve(bodyOf('/runs')), jsonSchemaOf(CREATE_RUN));
    assert.deepEqual(resolve(bodyOf('/runs/{id}/asks/{ask_id}')), jsonSchemaOf(ANSWER_ASK));
    assert.deepEqual((resolve(bodyOf('/runs')) as { required: string[] }).required, [
      'workflow_id',
    ]);
  });
});
