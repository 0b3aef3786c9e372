import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summary } from '../helpers/cli.js';
import { ClaudeSandbox } from '../helpers/claude-sandbox.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';

// A run of the built CLI with the real `claude` against the scripted Messages API, its spans
// sent to an OTLP/HTTP receiver on loopback: the tree, the costs and the trace context its
// processes get are checked against what the run itself reports.
const box = new ClaudeSandbox();
let receiver: OtlpReceiver;
before(async () => {
  await box.start();
  receiver = await startOtlpReceiver();
});
after(async () => {
  await receiver.close();
  await box.stop();
});

function near(actual: unknown, expected: number, what: string): void {
  assert.equal(typeof actual, 'number', `${what} is a number`);
  assert.ok(
    Math.abs((actual as number) - expected) < 1e-9,
    `${what}: ${String(actual)} vs ${expected}`,
  );
}

describe('OpenTelemetry traces of a run', () => {
  it('sends run -> agent -> step -> turn spans with the true costs, and gives claude and scripts the trace context', async () => {
    const s = box.server;
    // Turns that save their TRACEPARENT with a tool (Claude Code's Bash, which inherits its
    // environment): START.md, then SECOND.md in the same session (a warm process would be
    // reused there, with the first turn's environment), which forks.
    const saving = (file: string, then: string) => (r: { afterTool: boolean }) =>
      r.afterTool
        ? { text: then }
        : {
            toolUse: {
              name: 'Bash',
              input: { command: `printf %s "$TRACEPARENT" > ${file}`, description: 'save' },
            },
          };
    s.on('OTEL-START', saving('tp-claude.txt', '<goto>SECOND.md</goto>'));
    s.on('OTEL-SECOND', saving('tp-second.txt', '<fork next="CHECK.sh" item="x">W.md</fork>'));
    s.on('OTEL-WORKER', { text: '<result>w</result>' });
    const wf = box.write(
      {
        'START.md': 'OTEL-START',
        'SECOND.md': 'OTEL-SECOND',
        'W.md': 'OTEL-WORKER',
        'CHECK.sh':
          '#!/bin/sh\nprintf %s "$TRACEPARENT" > tp-script.txt\necho "<result>done</result>"\n',
      },
      'traced',
    );
    const r = await box.run(
      [wf, '--json', '--workflow-id', 'traced', '--dangerously-skip-permissions'],
      { IS_SANDBOX: '1', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r);
    assert.ok(out.total_cost_usd > 0);
    assert.ok(receiver.contentTypes.every((t) => t.startsWith('application/json')));

    const spans = receiver.spans.filter((x) => x.attributes['raymond.workflow_id'] === 'traced');
    const byId = new Map(spans.map((x) => [x.spanId, x]));
    const parent = (x: ReceivedSpan) => byId.get(x.parentSpanId);
    const kind = (x: ReceivedSpan | undefined) => x?.name.split(' ')[0];
    const runs = spans.filter((x) => x.parentSpanId === '');
    assert.equal(runs.length, 1, 'one root span');
    const run = runs[0]!;
    assert.equal(run.name, 'raymond run traced');
    assert.equal(run.resource['service.name'], 'raymond');
    assert.equal(new Set(spans.map((x) => x.traceId)).size, 1, 'one trace');

    const turns = spans.filter((x) => kind(x) === 'turn');
    const steps = spans.filter((x) => kind(x) === 'step');
    const agents = spans.filter((x) => kind(x) === 'agent');
    assert.deepEqual(agents.map((a) => a.name).sort(), ['agent main', 'agent main_w1']);
    assert.deepEqual(steps.map((a) => a.name).sort(), [
      'step CHECK.sh',
      'step SECOND.md',
      'step START.md',
      'step W.md',
    ]);
    assert.equal(turns.length, 3, 'one turn per claude invocation: START.md, SECOND.md, W.md');
    for (const turn of turns) {
      const step = parent(turn);
      assert.equal(kind(step), 'step', `${turn.name} is under a step`);
      assert.equal(step!.attributes['raymond.state'], turn.attributes['raymond.state']);
      assert.equal(kind(parent(step!)), 'agent', `${step!.name} is under an agent`);
      assert.equal(parent(parent(step!)!), run, 'the agent is under the run');
    }
    assert.equal(parent(steps.find((x) => x.name === 'step CHECK.sh')!)!.name, 'agent main');

    // Costs: the run's, each agent's and each step's are the sums of their turns'.
    near(run.attributes['raymond.cost_usd'], out.total_cost_usd, "the run span's cost");
    const sum = (xs: ReceivedSpan[]) =>
      xs.reduce((n, x) => n + Number(x.attributes['raymond.cost_usd']), 0);
    near(sum(turns), out.total_cost_usd, "the turns' costs");
    for (const step of steps)
      near(
        step.attributes['raymond.cost_usd'],
        sum(turns.filter((t) => parent(t) === step)),
        step.name,
      );
    for (const agent of agents)
      near(
        agent.attributes['raymond.cost_usd'],
        sum(turns.filter((t) => parent(parent(t)!) === agent)),
        agent.name,
      );

    // Tokens: each turn's as Claude Code reported them, each step's their sum.
    const tokens = (xs: ReceivedSpan[]) =>
      xs.reduce((n, x) => n + Number(x.attributes['raymond.tokens']), 0);
    for (const turn of turns) assert.ok(Number(turn.attributes['raymond.tokens']) > 0, turn.name);
    for (const step of steps)
      assert.equal(
        step.attributes['raymond.tokens'],
        tokens(turns.filter((t) => parent(t) === step)),
        step.name,
      );
    assert.equal(steps.find((x) => x.name === 'step START.md')!.attributes['raymond.turns'], 1);

    // The processes' trace context: claude's under its turn span, the script's under its step span.
    const startTurn = turns.find((t) => t.attributes['raymond.state'] === 'START.md')!;
    assert.equal(
      readFileSync(join(box.dir, 'tp-claude.txt'), 'utf8'),
      `00-${run.traceId}-${startTurn.spanId}-01`,
    );
    const second = turns.find((t) => t.attributes['raymond.state'] === 'SECOND.md')!;
    assert.equal(
      readFileSync(join(box.dir, 'tp-second.txt'), 'utf8'),
      `00-${run.traceId}-${second.spanId}-01`,
      "the session's next turn runs under its own span",
    );
    const check = steps.find((x) => x.name === 'step CHECK.sh')!;
    assert.equal(
      readFileSync(join(box.dir, 'tp-script.txt'), 'utf8'),
      `00-${run.traceId}-${check.spanId}-01`,
    );
  });

  it('an unreachable endpoint costs one warning line, never the run', async () => {
    box.server.on('OTEL-DOWN', { text: '<result>fine</result>' });
    const down = await startOtlpReceiver();
    const url = down.url;
    await down.close();
    const r = await box.run([
      box.write({ 'START.md': 'OTEL-DOWN' }, 'down'),
      '--json',
      '--otel-endpoint',
      url,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).status, 'completed');
    const lines = r.stderr.split('\n').filter((l) => l.includes('traces:'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /could not send spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces .*the run goes on without them/,
    );
  });
  it('an endpoint that trickles its answer one header line a second never keeps the process alive', async () => {
    // A raw server: it reads the request, then sends a status line and one header line a
    // second, for ever: each byte resets an idle timeout, so only an absolute deadline ends it.
    const sockets = new Set<Socket>();
    const timers = new Set<NodeJS.Timeout>();
    const slow = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\n');
        const timer = setInterval(() => socket.write(`X-Slow-${Date.now()}: 1\r\n`), 1000);
        timers.add(timer);
        socket.on('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const { port } = slow.address() as { port: number };
    try {
      const r = await box.run([
        box.write({ 'START.sh': '#!/bin/sh\necho "<result>slow</result>"\n' }, 'slow-otel'),
        '--json',
        '--otel-endpoint',
        `http://127.0.0.1:${port}`,
      ]);
      assert.equal(r.code, 0, `the process ended with its run's code; stderr:\n${r.stderr}`);
      assert.equal(summary(r).results.main, 'slow');
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
  it('refuses an endpoint that is no http(s) URL in one line, from the flag or the config', async () => {
    const wf = box.write({ 'START.sh': '#!/bin/sh\necho "<result>x</result>"\n' }, 'bad-url');
    const flag = await box.run([wf, '--otel-endpoint', 'ftp://collector']);
    assert.equal(flag.code, 64, flag.stderr);
    assert.match(
      flag.stderr.trim(),
      /^raymond: option '--otel-endpoint <url>' argument 'ftp:\/\/collector' is invalid\. expected an http:\/\/ or https:\/\/ URL/,
    );
    assert.equal(flag.stderr.trim().split('\n').length, 1);
  });
  it('refuses an endpoint no URL parser takes in one line, and only warns of one in the environment', async () => {
    const wf = box.write({ 'START.sh': '#!/bin/sh\necho "<result>x</result>"\n' }, 'unparsable');
    const flag = await box.run([wf, '--otel-endpoint', 'http://[::1']);
    assert.equal(flag.code, 64, flag.stderr);
    assert.equal(flag.stderr.trim().split('\n').length, 1, flag.stderr);
    assert.match(
      flag.stderr,
      /^raymond: option '--otel-endpoint <url>' argument 'http:\/\/\[::1' is invalid\. expected an http:\/\/ or https:\/\/ URL: it cannot be parsed /,
    );
    const env = await box.run([wf, '--json'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://[::1' });
    assert.equal(env.code, 0, env.stderr);
    assert.equal(summary(env).status, 'completed');
    assert.deepEqual(
      env.stderr.split('\n').filter((l) => l.includes('traces:') || l.includes(' at ')),
      [
        'warning: traces: the OTLP endpoint http://[::1/v1/traces is not an http(s) URL: it cannot be parsed; the run goes on without traces',
      ],
    );
  });
});
