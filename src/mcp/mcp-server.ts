import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { errorMessage } from '../errors.js';
import type { Checked } from '../schema-problem.js';
import { commitAnswer, pendingAsk } from '../serve/ask-answer.js';
import { affordanceOf } from '../serve/ask-affordance.js';
import { startRun } from '../serve/routes-runs.js';
import type { ServeContext } from '../serve/serve-context.js';
import type { ServedRun } from '../serve/served-run.js';
import { askInPlace, type CallExtra } from './ask-in-place.js';
import { FlatSchemaValidator } from './flat-schema-validator.js';
import { followRun } from './run-follower.js';
import { toolResult } from './run-report.js';
import { answerArgs, cancelArgs, statusArgs, workflowArgsCheck } from './tool-schemas.js';
import { followTools, workflowTool, workflowsByTool } from './workflow-tools.js';

/** How an MCP server of Raymond's behaves, beyond the serve context it shares. */
export interface McpOptions {
  version: string;
  /** The longest a call waits for a run before it returns the run id (`--wait`). */
  waitSeconds: number;
  /** Aborted when the server shuts down: waiting calls answer at once, their runs staying resumable. */
  closing?: AbortSignal;
}

/** What the server tells a client about its tools at the handshake. */
const INSTRUCTIONS =
  "Each workflow tool runs a Raymond workflow (a folder of prompts and scripts that drives coding agents) and returns its result. Runs cost money: pass `budget` to cap one. A run that outlasts the call goes on; follow it with raymond_status. A question the run asks goes to the person: relay it and answer with raymond_answer, using the person's words.";

/** A tool's failure as the model should read it: one line, and the error flag. */
function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The call's arguments, checked: what is wrong with them, in one line, is the tool's error. */
function argsOf<S extends TSchema>(check: Checked<S>, raw: unknown): Static<S> {
  const value = raw ?? {};
  if (check.check(value)) return value;
  throw new ToolFailure(`invalid arguments: ${check.problem(value, 'the arguments')}`);
}

/** A failure a tool reports as its result (isError), rather than as a protocol error. */
class ToolFailure extends Error {}

/**
 * One MCP server over a serve context: the context's workflows as tools,
 * plus raymond_status, raymond_answer and raymond_cancel. `raymond mcp`
 * makes one for its stdio client; `raymond serve` one per session of
 * `/mcp`. The runs, their state files and history are the context's.
 */
export function createMcpServer(ctx: ServeContext, options: McpOptions): Server {
  const server = new Server(
    { name: 'raymond', title: 'Raymond workflows', version: options.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: new FlatSchemaValidator(),
    },
  );
  const capWait = (asked: number | undefined) =>
    Math.min(asked ?? options.waitSeconds, options.waitSeconds);

  /** Follows a run for a call, then answers with it as it stands. */
  const follow = async (run: ServedRun, waitSeconds: number, extra: CallExtra) => {
    const signal = options.closing
      ? AbortSignal.any([extra.signal, options.closing])
      : extra.signal;
    const why = await followRun(run, {
      waitMs: waitSeconds * 1000,
      signal,
      ...askInPlace(server, run, extra),
      answer: (ask, text) => commitAnswer(run, ask, { response: text, files: [] }, ctx.staging),
    });
    return toolResult(run, options.closing?.aborted ? 'closing' : why, waitSeconds);
  };

  const runNamed = (id: string): ServedRun => {
    const run = ctx.pool.get(id);
    if (!run) throw new ToolFailure(`no run "${id}" on this server`);
    return run;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const entries = await ctx.registry.rescan();
    return {
      tools: [
        ...[...workflowsByTool(entries)].map(([name, e]) =>
          workflowTool(e, name, options.waitSeconds),
        ),
        ...followTools(options.waitSeconds),
      ],
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: raw } = request.params;
    try {
      switch (name) {
        case 'raymond_status': {
          const a = argsOf(statusArgs, raw);
          return await follow(runNamed(a.run_id), capWait(a.wait_seconds), extra);
        }
        case 'raymond_answer': {
          const a = argsOf(answerArgs, raw);
          const run = runNamed(a.run_id);
          const ask = pendingAsk(run, a.ask_id);
          // An ask that needs files is answered where files can be sent.
          if (affordanceOf(ask.files)?.mode === 'slot')
            throw new ToolFailure(
              `ask "${ask.id}" needs files (upload slots), which raymond_answer cannot send; under raymond serve, answer it on the run's page or with POST /runs/${run.id}/asks/${ask.id}`,
            );
          await commitAnswer(run, ask, { response: a.answer, files: [] }, ctx.staging);
          return await follow(run, capWait(a.wait_seconds), extra);
        }
        case 'raymond_cancel': {
          const run = runNamed(argsOf(cancelArgs, raw).run_id);
          if (run.ended) throw new ToolFailure(`run "${run.id}" already ended (${run.status})`);
          await ctx.pool.cancel(run);
          return toolResult(run, 'ended');
        }
        default: {
          const entry = workflowsByTool(ctx.registry.list()).get(name);
          if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}"`);
          const a = argsOf(workflowArgsCheck(entry), raw) as {
            input?: string;
            budget?: number;
            budget_hard?: boolean;
            model?: string;
            working_directory?: string;
            wait_seconds?: number;
          };
          const run = await startRun(ctx, {
            workflow_id: entry.id,
            ...(a.input !== undefined ? { input: a.input } : {}),
            ...(a.budget !== undefined ? { budget: a.budget } : {}),
            ...(a.budget_hard !== undefined ? { budget_hard: a.budget_hard } : {}),
            ...(a.model !== undefined ? { model: a.model } : {}),
            ...(a.working_directory !== undefined
              ? { working_directory: a.working_directory }
              : {}),
          });
          ctx.say(`${name}: run ${run.id}`);
          return await follow(run, capWait(a.wait_seconds), extra);
        }
      }
    } catch (err) {
      if (err instanceof McpError) throw err;
      return failure(errorMessage(err));
    }
  });
  return server;
}
