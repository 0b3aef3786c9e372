import type { ServerResponse } from 'node:http';
import { requestText, type ModelApi, type ModelReply } from './model-api.js';

/** One input item of a Responses API request, as far as a scripted model reads it. */
interface InputItem {
  type?: string;
  role?: string;
  content?: unknown;
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as Array<{ type?: string; text?: unknown }>).flatMap((p) =>
    (p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string'
      ? [p.text]
      : [],
  );
}

/** Codex opens a session with a user message of its own: `<environment_context>`; it is no prompt. */
const isContext = (item: InputItem) =>
  texts(item.content).join('').trimStart().startsWith('<environment_context>');

/**
 * What a Responses API request asks this turn: the text of its last user
 * message (not Codex's environment context), and how many tool results
 * (`function_call_output`) follow it.
 */
export function responsesTurn(input: unknown): { prompt: string; results: number } {
  const items: InputItem[] = Array.isArray(input)
    ? (input as InputItem[])
    : [{ role: 'user', content: typeof input === 'string' ? input : '' }];
  let at = items.length - 1;
  for (; at >= 0; at--) {
    const item = items[at]!;
    if ((item.type ?? 'message') === 'message' && item.role === 'user' && !isContext(item)) break;
  }
  return {
    prompt: at < 0 ? '' : (texts(items[at]!.content).at(-1) ?? ''),
    results: items.slice(at + 1).filter((i) => i.type === 'function_call_output').length,
  };
}

/**
 * Writes one Responses API answer as the server-sent events the Codex CLI
 * reads: the response created, its one output item (an assistant message,
 * or a function call the CLI runs and answers) added and done, then the
 * response completed with its usage. Ids count up from `serial`, so a
 * replayed test sends the same bytes.
 */
export function writeResponse(
  res: ServerResponse,
  model: string,
  reply: ModelReply,
  serial: number,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  const item = reply.toolUse
    ? {
        type: 'function_call',
        id: `fc_test${serial}`,
        call_id: `call_test${serial}`,
        name: reply.toolUse.name,
        arguments: JSON.stringify(reply.toolUse.input),
        status: 'completed',
      }
    : {
        type: 'message',
        id: `msg_test${serial}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: reply.text ?? '', annotations: [] }],
      };
  const response = { id: `resp_test${serial}`, object: 'response', model, output: [] };
  send('response.created', { response: { ...response, status: 'in_progress' } });
  send('response.output_item.added', { output_index: 0, item });
  send('response.output_item.done', { output_index: 0, item });
  const { input_tokens, output_tokens } = reply.usage;
  send('response.completed', {
    response: {
      ...response,
      status: 'completed',
      output: [item],
      usage: {
        input_tokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input_tokens + output_tokens,
      },
    },
  });
  res.end();
}

/** OpenAI's Responses API, as the Codex CLI speaks it. */
export const OPENAI_RESPONSES: ModelApi = {
  name: 'openai-responses',
  accepts: (method, path) => method === 'POST' && path?.startsWith('/v1/responses') === true,
  body: (req) => requestText(req),
  prompt: (body) => responsesTurn(body.input).prompt,
  // Tools in `tools`, or in an `additional_tools` input item, as Codex's newer models send them.
  offersTools: (body) =>
    (Array.isArray(body.tools) && body.tools.length > 0) ||
    (Array.isArray(body.input) &&
      (body.input as Array<{ type?: string }>).some((i) => i.type === 'additional_tools')),
  write: writeResponse,
};
