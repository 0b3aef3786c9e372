import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AgentAsk } from '../../machines/types.js';
import type { ServedRun } from '../serve/served-run.js';
import type { FollowOptions } from './run-follower.js';

/** What a tool call's handler is given besides its request. */
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long a question put to a person in place may wait when the ask itself has no timeout. */
const ELICIT_PATIENCE_MS = 24 * 60 * 60 * 1000;

/** The question as the person sees it in their client. */
function questionText(run: ServedRun, ask: AgentAsk): string {
  const gate = ask.gate
    ? '\n\n(Raymond\'s cost gate: answer "yes" to go on, "stop" to stop, or a new amount in USD.)'
    : '';
  return `${run.workflowId} (run ${run.id}) asks:\n\n${ask.prompt}${gate}`;
}

/**
 * How a call reaches the person behind its client: progress notifications
 * when the call asked for them (a progress token), and the run's questions
 * as MCP elicitations when the client can take them (form elicitation).
 * An elicitation is withdrawn when the ask is answered elsewhere or times
 * out, and when the call ends.
 */
export function askInPlace(
  server: Server,
  run: ServedRun,
  extra: CallExtra,
): Pick<FollowOptions, 'progress' | 'elicit'> {
  const token = extra._meta?.progressToken;
  let sent = 0;
  const progress =
    token === undefined
      ? undefined
      : (message: string) =>
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: ++sent, message },
            })
            .catch(() => {});
  if (!server.getClientCapabilities()?.elicitation?.form) return progress ? { progress } : {};
  const elicit = async (ask: AgentAsk, signal: AbortSignal): Promise<string | undefined> => {
    const withdraw = new AbortController();
    const onAbort = () => withdraw.abort();
    signal.addEventListener('abort', onAbort);
    const stop = run.watch((e) => {
      if (e === null || (e.type === 'ask.answered' && e.askId === ask.id)) withdraw.abort();
    });
    const timeoutAt = ask.timeout_at ? Date.parse(ask.timeout_at) - Date.now() : NaN;
    try {
      const r = await server.elicitInput(
        {
          message: questionText(run, ask),
          requestedSchema: {
            type: 'object',
            properties: {
              answer: { type: 'string', title: 'Answer', description: ask.prompt.slice(0, 500) },
            },
            required: ['answer'],
          },
        },
        {
          relatedRequestId: extra.requestId,
          signal: withdraw.signal,
          timeout: Number.isFinite(timeoutAt) ? Math.max(1000, timeoutAt) : ELICIT_PATIENCE_MS,
        },
      );
      const answer = r.action === 'accept' ? r.content?.answer : undefined;
      return typeof answer === 'string' ? answer : undefined;
    } catch {
      // Withdrawn, timed out, or refused by the client: the question stays for raymond_answer.
      return undefined;
    } finally {
      stop();
      signal.removeEventListener('abort', onAbort);
    }
  };
  return progress ? { progress, elicit } : { elicit };
}
