import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ModelApi, ModelReply } from './model-api.js';

/**
 * Writes one Messages API response as the server-sent events the agent CLIs
 * (Claude Code, pi's anthropic-messages provider) read: message_start, a
 * text block and/or a tool_use block, message_delta with the stop reason and
 * usage, message_stop. Ids count up from `serial`, so a replayed test sends
 * the same bytes.
 */
export function writeMessage(
  res: ServerResponse,
  model: string,
  reply: ModelReply,
  serial: number,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: Record<string, unknown>) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', {
    message: {
      id: `msg_test${serial}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: reply.usage.input_tokens, output_tokens: 0 },
    },
  });
  let index = 0;
  if (reply.text !== undefined) {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index, delta: { type: 'text_delta', text: reply.text } });
    send('content_block_stop', { index });
    index++;
  }
  if (reply.toolUse) {
    send('content_block_start', {
      index,
      content_block: {
        type: 'tool_use',
        id: `toolu_test${serial}`,
        name: reply.toolUse.name,
        input: {},
      },
    });
    send('content_block_delta', {
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.toolUse.input) },
    });
    send('content_block_stop', { index });
  }
  send('message_delta', {
    delta: { stop_reason: reply.toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: reply.usage.output_tokens },
  });
  send('message_stop', {});
  res.end();
}

interface Block {
  type: string;
  text?: string;
  content?: unknown;
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as Block[]).flatMap((b) => (b.type === 'text' && b.text ? [b.text] : []));
}

/** What the model was asked this turn: the last text of the last user message that is not a tool result. */
export function promptOf(messages: ReadonlyArray<{ role: string; content: unknown }>): string {
  const plain = messages
    .filter((m) => m.role === 'user')
    .reverse()
    .find(
      (m) =>
        !(Array.isArray(m.content) && (m.content as Block[]).some((b) => b.type === 'tool_result')),
    );
  return texts(plain?.content).at(-1) ?? '';
}

/**
 * Reads one request to a scripted Messages API: what is not a message
 * (another path, `count_tokens`, reporting `countedTokens`) is answered
 * here; a message's body is returned for the caller to answer.
 */
export async function messageBody(
  req: IncomingMessage,
  res: ServerResponse,
  countedTokens: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
    res.writeHead(404).end();
    return undefined;
  }
  if (req.url.startsWith('/v1/messages/count_tokens')) {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ input_tokens: countedTokens }));
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Anthropic's Messages API, as Claude Code and pi's anthropic-messages provider speak it. */
export const ANTHROPIC_MESSAGES: ModelApi = {
  name: 'anthropic-messages',
  accepts: (_method, path) => path?.startsWith('/v1/messages') === true,
  body: (req, res) => messageBody(req, res, 0),
  prompt: (body) =>
    promptOf((body.messages ?? []) as ReadonlyArray<{ role: string; content: unknown }>),
  offersTools: (body) => Array.isArray(body.tools) && body.tools.length > 0,
  write: writeMessage,
};
