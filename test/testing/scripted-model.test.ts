import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STEP_HEADER } from '../../src/agents/agent-backend.js';
import { ScriptedModel, type StepLog, type StepTicket } from '../../src/testing/scripted-model.js';

/** The events of one streamed answer, as JSON objects. */
async function ask(model: ScriptedModel, token: string | undefined, body: Record<string, unknown>) {
  const res = await fetch(`${model.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { [STEP_HEADER]: token } : {}) },
    body: JSON.stringify({ model: 'm', tools: [{ name: 'Bash' }], ...body }),
  });
  const events = (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, any>);
  const tool = events.find((e) => e.content_block?.type === 'tool_use');
  return {
    text: events.find((e) => e.delta?.type === 'text_delta')?.delta.text as string | undefined,
    tool: tool && {
      name: tool.content_block.name as string,
      input: JSON.parse(
        String(events.find((e) => e.delta?.type === 'input_json_delta')?.delta.partial_json),
      ) as unknown,
    },
    usage: [events[0]?.message.usage.input_tokens, events.at(-2)?.usage.output_tokens],
  };
}

const prompt = (text: string) => ({
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'reminder' },
        { type: 'text', text },
      ],
    },
  ],
});
const ticket = (t: Partial<StepTicket>): StepTicket => ({
  agent: 'main',
  state: 'S',
  turn: 1,
  cwd: '/w',
  backend: 'claude',
  ...t,
});

describe('ScriptedModel', () => {
  const unscripted: StepLog[] = [];
  const model = new ScriptedModel((log) => unscripted.push(log));
  before(() => model.start());
  after(() => model.stop());

  it("answers a step's requests with its tool calls one by one (Claude Code reads before it writes or edits), then its text and tokens", async () => {
    const token = model.open(
      ticket({
        reply: {
          text: 'done',
          tools: [
            { bash: 'ls' },
            { write: { path: 'a.md', content: 'x' } },
            { edit: { path: '/abs/b.md', old: 'o', new: 'n' } },
          ],
          tokens: { input: 10, output: 2 },
        },
      }),
    );
    const got = [];
    for (let i = 0; i < 6; i++) got.push(await ask(model, token, prompt('do it')));
    assert.deepEqual(
      got.map((g) => g.tool?.name ?? g.text),
      ['Bash', 'Read', 'Write', 'Read', 'Edit', 'done'],
    );
    assert.deepEqual(got[2]!.tool!.input, { file_path: '/w/a.md', content: 'x' });
    assert.deepEqual(got[4]!.tool!.input, {
      file_path: '/abs/b.md',
      old_string: 'o',
      new_string: 'n',
    });
    assert.deepEqual(got[0]!.usage, [0, 0]);
    assert.deepEqual(got[5]!.usage, [10, 2]);
    assert.deepEqual(model.log(token), {
      ticket: model.log(token)!.ticket,
      prompt: 'do it',
      requests: 6,
    });
  });

  it("speaks pi's tool names and inputs to a pi step", async () => {
    const token = model.open(
      ticket({
        backend: 'pi',
        reply: {
          text: 't',
          tools: [
            { bash: 'ls' },
            { write: { path: 'a', content: 'x' } },
            { edit: { path: 'a', old: 'x', new: 'y' } },
            { tool: 'grep', input: { pattern: 'p' } },
          ],
        },
      }),
    );
    const got = [];
    for (let i = 0; i < 4; i++) got.push((await ask(model, token, prompt('p'))).tool);
    assert.deepEqual(got, [
      { name: 'bash', input: { command: 'ls' } },
      { name: 'write', input: { path: '/w/a', content: 'x' } },
      { name: 'edit', input: { path: '/w/a', edits: [{ oldText: 'x', newText: 'y' }] } },
      { name: 'grep', input: { pattern: 'p' } },
    ]);
  });

  it('reports a step with no scripted turn once, with its prompt, and answers without a tag', async () => {
    const token = model.open(ticket({ state: 'REVIEW', turn: 2 }));
    const first = await ask(model, token, prompt('review this'));
    await ask(model, token, prompt('review this'));
    assert.equal(first.text, 'raymond test: no reply is scripted for REVIEW turn 2');
    assert.equal(unscripted.length, 1);
    assert.equal(unscripted[0]!.prompt, 'review this');
  });

  it("answers side calls (no tools) and requests without a ticket freely, outside any step's turns", async () => {
    const token = model.open(ticket({ reply: { text: 'main' } }));
    assert.equal((await ask(model, token, { ...prompt('title?'), tools: [] })).text, 'ok');
    assert.equal((await ask(model, undefined, prompt('x'))).text, 'ok');
    assert.equal(model.log(token)!.requests, 0);
  });
});
