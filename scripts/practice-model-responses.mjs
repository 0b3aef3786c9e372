// The OpenAI Responses API side of scripts/practice-model.mjs, for the real Codex CLI: what a
// request's prompt and tool results are, how a step is streamed back, and the Codex config that
// points Codex at the practice model. Dependency-free, like the script.

/** The texts of a Responses API item's content: a string, or input_text / output_text parts. */
function itemTexts(content) {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p) =>
    /^(input|output)_text$/.test(p?.type) && typeof p.text === 'string' ? [p.text] : [],
  );
}

/** Where this turn's prompt is: the last user message that is not Codex's <environment_context>. */
function promptIndex(input) {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if ((item?.type ?? 'message') !== 'message' || item.role !== 'user') continue;
    if (!itemTexts(item.content).join('').trimStart().startsWith('<environment_context>')) return i;
  }
  return -1;
}

/** Codex's header above a command's output (`Chunk ID: ...` to `Output:`): {{result}} is the output alone. */
const CODEX_OUTPUT_HEADER = /^Chunk ID: [^\n]*\n(?:[^\n]*\n)*?Output:\n/;

/** A Responses API request's prompt and its tool results since (function_call_output texts). */
export function responsesTurn(body) {
  const input = Array.isArray(body.input)
    ? body.input
    : [{ role: 'user', content: String(body.input ?? '') }];
  const at = promptIndex(input);
  const prompt = at < 0 ? '' : (itemTexts(input[at].content).at(-1) ?? '');
  const results = input
    .slice(at + 1)
    .filter((item) => item?.type === 'function_call_output')
    .map((item) =>
      (typeof item.output === 'string' ? item.output : itemTexts(item.output).join('')).replace(
        CODEX_OUTPUT_HEADER,
        '',
      ),
    );
  return { prompt, results };
}

let items = 0;

/**
 * Answers as the Responses API streams (what Codex reads): the response, its one output item
 * (an assistant message, or a function_call for a step that calls a tool) added, its text as a
 * delta, the item done, then the response completed with its usage: with `tokens` (--tokens), a
 * token per 4 characters of the request (`size`) and of the reply; else none, so it costs $0.
 */
export function streamResponse(res, model, step, size, tokens) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence_number = 0;
  const send = (type, data) =>
    res.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence_number++, ...data })}\n\n`,
    );
  const n = `practice_${Date.now()}_${++items}`;
  const item = step.tool
    ? {
        type: 'function_call',
        id: `fc_${n}`,
        call_id: `call_${n}`,
        name: step.tool,
        arguments: JSON.stringify(step.input ?? {}),
        status: 'completed',
      }
    : {
        type: 'message',
        id: `msg_${n}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: step.reply, annotations: [] }],
      };
  const reply = step.tool ? item.arguments : step.reply;
  const input_tokens = tokens ? Math.ceil(size / 4) : 0;
  const output_tokens = tokens ? Math.ceil(reply.length / 4) : 0;
  const response = {
    id: `resp_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'in_progress',
    output: [],
  };
  send('response.created', { response });
  const added = step.tool ? item : { ...item, status: 'in_progress', content: [] };
  send('response.output_item.added', { output_index: 0, item: added });
  if (!step.tool)
    send('response.output_text.delta', {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: step.reply,
    });
  send('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input_tokens + output_tokens,
  };
  send('response.completed', {
    response: { ...response, status: 'completed', output: [item], usage },
  });
  res.end();
}

/** Codex reads $HOME/.codex/config.toml: this one makes the practice model its provider. */
export function codexConfig(url) {
  return [
    '# Written by scripts/practice-model.mjs at each start (the port changes): Codex talks to it.',
    'model_provider = "practice"',
    '',
    '[model_providers.practice]',
    'name = "practice model"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}
