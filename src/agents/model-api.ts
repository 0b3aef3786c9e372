import type { IncomingMessage, ServerResponse } from 'node:http';

/** One reply of a scripted model: final text, or a tool call the agent CLI runs and answers. */
export interface ModelReply {
  text?: string;
  toolUse?: { name: string; input: Record<string, unknown> };
  usage: { input_tokens: number; output_tokens: number };
}

/**
 * A model API as `raymond test`'s scripted model speaks it to an agent CLI:
 * which requests are its, what a request asks, and how a reply is written.
 * A backend names the one its CLI speaks (ScriptedSetup.api); a backend
 * whose CLI speaks another API brings its own: the set is open.
 */
export interface ModelApi {
  /** As messages name it: `anthropic-messages`. */
  readonly name: string;
  /** Whether a request (its method and path) is this API's. */
  accepts(method: string | undefined, path: string | undefined): boolean;
  /**
   * The body of a request that asks the model, or undefined when this API
   * answered the request itself (a token count, a path it does not serve).
   */
  body(req: IncomingMessage, res: ServerResponse): Promise<string | undefined>;
  /** What a parsed request asks the model this turn: the last user text. */
  prompt(body: Record<string, unknown>): string;
  /** Whether a parsed request offers tools: a turn of a step (an agent CLI's side calls, titles and summaries, offer none). */
  offersTools(body: Record<string, unknown>): boolean;
  /** Writes one reply as the API streams it; ids count up from `serial`, so a replayed test sends the same bytes. */
  write(res: ServerResponse, model: string, reply: ModelReply, serial: number): void;
}

/** A request's whole body as text. */
export async function requestText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
