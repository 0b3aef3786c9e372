import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import WebSocket from 'ws';
import { CLI, sh } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

interface Inspected {
  type: '@xstate.actor' | '@xstate.snapshot' | '@xstate.event';
  name?: string;
  sessionId: string;
  parentId?: string;
  snapshot?: { value?: unknown; status?: string; context?: Record<string, unknown> };
  event?: { type: string; agentId?: string };
}

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Per agent actor name: the machine states its snapshots went through, in order, without repeats. */
function statesByAgent(events: Inspected[]): Map<string, unknown[]> {
  const names = new Map(
    events.filter((e) => e.type === '@xstate.actor').map((e) => [e.sessionId, e.name!]),
  );
  const out = new Map<string, unknown[]>();
  for (const e of events) {
    if (e.type !== '@xstate.snapshot' || e.snapshot?.value === undefined) continue;
    const name = names.get(e.sessionId)!;
    const seen = out.get(name) ?? [];
    if (seen.at(-1) !== e.snapshot.value) seen.push(e.snapshot.value);
    out.set(name, seen);
  }
  return out;
}

/** A markdown dispatcher forking two script workers and one markdown worker. */
function writeWorkflow(dir: string): string {
  return box.write(
    {
      'START.md': 'INSPECT-START: fork the workers.',
      'W.sh': sh('echo "<result>script result $n</result>"'),
      'MD.md': 'INSPECT-MD: secret prompt text.',
      'END.sh': sh('echo "<result>end</result>"'),
    },
    dir,
  );
}

describe('inspecting a run (real claude, scripted API)', () => {
  before(() => {
    box.server.on('INSPECT-START', {
      text: '<fork next="END.sh" n="1">W.sh</fork><fork next="END.sh" n="2">W.sh</fork><fork next="END.sh">MD.md</fork>',
    });
    box.server.on('INSPECT-MD', { text: 'secret model reply <result>md result</result>' });
  });

  it('--inspect relays every agent actor and its state changes to a WebSocket client, sanitized, on 127.0.0.1', async () => {
    const wf = writeWorkflow('live');
    const port = await freePort();
    const run = execa(
      process.execPath,
      [CLI, wf, '--inspect', String(port), '--inspect-wait', '--workflow-id', 'live', '--no-debug'],
      { cwd: box.dir, env: box.env(), reject: false, timeout: 60_000 },
    );
    // The relay is up once the URL is printed; --inspect-wait holds the run until we are connected.
    await new Promise<void>((resolve) =>
      run.stderr.on('data', (c: Buffer) => String(c).includes(`localhost:${port}`) && resolve()),
    );
    // Loopback only: the machine's other addresses refuse the relay.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external)
      await assert.rejects(
        new Promise((resolve, reject) =>
          new WebSocket(`ws://${external.address}:${port}`).on('open', resolve).on('error', reject),
        ),
        /ECONNREFUSED/,
      );
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    const events: Inspected[] = [];
    client.on('message', (m: Buffer) => events.push(JSON.parse(m.toString()) as Inspected));
    const r = await run;
    assert.equal(r.exitCode, 0, String(r.stderr));
    client.close();
    assert.match(String(r.stderr), new RegExp(`open http://localhost:${port}`));

    const state = box.state('live');
    const agents = state.agents.map((a) => a.id).sort();
    assert.deepEqual(agents, ['main', 'main_md3', 'main_w1', 'main_w2']);
    const actors = events.filter((e) => e.type === '@xstate.actor');
    const supervisor = actors.find((e) => e.name === 'supervisor')!;
    assert.ok(supervisor, 'the supervisor is inspected');
    for (const id of agents) {
      const actor = actors.find((e) => e.name === id);
      assert.ok(actor, `agent ${id} has an actor`);
      assert.equal(actor.parentId, supervisor.sessionId, `${id} is the supervisor's child`);
    }
    const states = statesByAgent(events);
    for (const id of agents.filter((a) => a !== 'main'))
      assert.deepEqual(states.get(id), ['idle', 'invoking', 'terminated'], `${id}'s machine`);
    assert.deepEqual(
      states.get('main'),
      ['idle', 'invoking', 'idle', 'invoking', 'terminated'],
      'main: the fork, then END.sh',
    );
    const done = events
      .filter((e) => e.type === '@xstate.event' && e.event?.type === 'step.done')
      .map((e) => e.event!.agentId)
      .sort();
    assert.deepEqual(done, [...agents, 'main'].sort(), 'one step.done per step (main twice)');
    const text = JSON.stringify(events);
    assert.doesNotMatch(
      text,
      /secret|script result|md result|INSPECT-/,
      'prompts and results stay out without --inspect-full',
    );
    // The relay is gone with the run.
    await assert.rejects(
      new Promise((resolve, reject) =>
        new WebSocket(`ws://127.0.0.1:${port}`).on('open', resolve).on('error', reject),
      ),
    );
  });

  it('--trace writes the same events as JSON lines; --inspect-full keeps prompts and results; --inspect-agents filters', async () => {
    const wf = writeWorkflow('traced');
    const trace = join(box.dir, 'trace.jsonl');
    const r = await box.run([
      wf,
      '--trace',
      trace,
      '--workflow-id',
      'traced',
      '--no-debug',
      '--quiet',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const events = readFileSync(trace, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Inspected);
    const state = box.state('traced');
    const names = new Set(events.filter((e) => e.type === '@xstate.actor').map((e) => e.name));
    for (const a of state.agents) assert.ok(names.has(a.id), `${a.id} in the trace`);
    const states = statesByAgent(events);
    for (const a of state.agents)
      assert.equal(
        states.get(a.id)!.at(-1),
        'terminated',
        `${a.id} ends terminated, as in the state file (${a.status})`,
      );
    const last = events
      .filter(
        (e) => e.type === '@xstate.snapshot' && e.snapshot?.context?.total_cost_usd !== undefined,
      )
      .at(-1)!;
    assert.equal(
      last.snapshot!.context!.total_cost_usd,
      state.total_cost_usd,
      "the supervisor's last cost is the run's",
    );
    assert.ok(state.total_cost_usd > 0);
    assert.doesNotMatch(readFileSync(trace, 'utf8'), /secret|md result/);

    const full = await box.run([
      wf,
      '--trace',
      trace,
      '--inspect-full',
      '--workflow-id',
      'traced-full',
      '--no-debug',
      '--quiet',
    ]);
    assert.equal(full.code, 0, full.stderr);
    assert.match(readFileSync(trace, 'utf8'), /md result/);

    const some = await box.run([
      wf,
      '--trace',
      trace,
      '--inspect-agents',
      'main_w*',
      '--workflow-id',
      'traced-some',
      '--no-debug',
      '--quiet',
    ]);
    assert.equal(some.code, 0, some.stderr);
    const kept = readFileSync(trace, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Inspected)
      .filter((e) => e.type === '@xstate.actor')
      .map((e) => e.name);
    assert.ok(
      kept.includes('supervisor') && kept.includes('main_w1') && kept.includes('main_w2'),
      kept.join(),
    );
    assert.ok(!kept.includes('main') && !kept.includes('main_md3'), kept.join());
  });

  it('raymond replay sends a trace, event for event, to an inspector page', async () => {
    const wf = writeWorkflow('replayed');
    const trace = join(box.dir, 'replay.jsonl');
    const r = await box.run([
      wf,
      '--trace',
      trace,
      '--workflow-id',
      'replayed',
      '--no-debug',
      '--quiet',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const lines = readFileSync(trace, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Inspected);
    // The run's own events are in the trace too; the inspector gets the actors' events.
    const recorded = lines.filter((e) => e.type.startsWith('@xstate.'));
    assert.ok(
      lines.some((e) => (e.type as string) === '@raymond.step.done'),
      'the run events are in the trace',
    );
    const port = await freePort();
    const replay = execa(process.execPath, [CLI, 'replay', trace, '--port', String(port)], {
      cwd: box.dir,
      reject: false,
      timeout: 30_000,
    });
    await new Promise<void>((resolve) =>
      replay.stderr.on('data', (c: Buffer) => String(c).includes(`localhost:${port}`) && resolve()),
    );
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    const received: Inspected[] = [];
    client.on('message', (m: Buffer) => received.push(JSON.parse(m.toString()) as Inspected));
    const done = await replay;
    client.close();
    assert.equal(done.exitCode, 0, String(done.stderr));
    assert.match(String(done.stderr), new RegExp(`replayed ${recorded.length} events`));
    assert.deepEqual(received, recorded);

    const bad = await box.run(['replay', join(wf, 'START.md')]);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /^raymond: .*START\.md: line 1 is not JSON: not a --trace file\n$/);
  });

  it('a taken port or an unwritable trace is one line, exit 64, and no run', async () => {
    const wf = writeWorkflow('bad');
    const port = await freePort();
    const holder = createServer().listen(port, '127.0.0.1');
    try {
      const r = await box.run([wf, '--inspect', String(port), '--workflow-id', 'busy']);
      assert.equal(r.code, 64);
      assert.equal(
        r.stderr,
        `raymond: --inspect: port ${port} on 127.0.0.1 is in use; pick another with --inspect=PORT\n`,
      );
      const trace = box.write(
        { 'one.jsonl': '{"type":"@xstate.actor","sessionId":"x:0","name":"supervisor"}\n' },
        'traces',
      );
      const replay = await box.run(['replay', join(trace, 'one.jsonl'), '--port', String(port)]);
      assert.equal(replay.code, 64);
      assert.equal(
        replay.stderr,
        `raymond: replay: port ${port} on 127.0.0.1 is in use; pick another with --port PORT\n`,
      );
    } finally {
      holder.close();
    }
    const t = await box.run([
      wf,
      '--trace',
      join(box.dir, 'no/such/dir/t.jsonl'),
      '--workflow-id',
      'notrace',
    ]);
    assert.equal(t.code, 64);
    assert.match(t.stderr, /^raymond: .*t\.jsonl: cannot write the --trace file \(ENOENT\)\n$/);
    for (const id of ['busy', 'notrace'])
      assert.equal(existsSync(join(box.dir, '.raymond/state', `${id}.json`)), false);
  });
});
