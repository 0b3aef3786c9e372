import type { RecordedTurn, ScriptedCall } from '../agent-backend.js';

/** The line the executor adds to a step's debug stream with the turn's own usage (codex reports the thread's). */
export const RECORD_USAGE_LINE = 'raymond.turn_usage';

type Line = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** codex runs a shell command as `/bin/bash -lc '<command>'`: the command as the model gave it. */
function unwrap(command: string): string {
  const m = /^\S*\/(?:ba|z)?sh -lc '([\s\S]*)'$/.exec(command);
  return m ? m[1]!.replaceAll(`'\\''`, `'`) : command;
}

function callOf(item: Line, cwd: string): ScriptedCall | undefined {
  if (item.type === 'command_execution' && typeof item.command === 'string')
    return { bash: unwrap(item.command).replaceAll(`${cwd}/`, '') };
  if (item.type === 'mcp_tool_call' && typeof item.tool === 'string')
    return {
      tool: item.tool,
      input: (item.arguments && typeof item.arguments === 'object' ? item.arguments : {}) as Record<
        string,
        unknown
      >,
    };
  return undefined;
}

/**
 * The turns of a codex step's debug stream (`codex exec --json`, one process
 * a turn, a reminder another): each ends at `turn.completed`, with the last
 * agent message as its text, its commands as `bash` calls (paths into `cwd`
 * made relative), its MCP calls as tool calls, and its own tokens from the
 * line the executor added. A failed turn is left out. A patch codex applied
 * itself (`file_change`) is not replayed: its stream names the files, not
 * the change.
 */
export function codexRecordedTurns(stream: string, cwd: string): RecordedTurn[] | undefined {
  const lines: Line[] = [];
  for (const raw of stream.split('\n')) {
    try {
      const v: unknown = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) lines.push(v as Line);
    } catch {
      // Not JSON (a blank line, or a line cut by a killed process).
    }
  }
  if (!lines.some((l) => l.type === 'thread.started')) return undefined;
  const turns: RecordedTurn[] = [];
  let turn: RecordedTurn | undefined;
  let done: RecordedTurn | undefined;
  for (const l of lines) {
    if (l.type === 'thread.started')
      turn = { text: '', tools: [], tokens: { input: 0, output: 0 } };
    else if (l.type === 'item.completed' && turn) {
      const item = (l.item ?? {}) as Line;
      if (item.type === 'agent_message' && typeof item.text === 'string') turn.text = item.text;
      const call = callOf(item, cwd);
      if (call) turn.tools.push(call);
    } else if (l.type === 'turn.completed' && turn) {
      turns.push(turn);
      done = turn;
      turn = undefined;
    } else if (l.type === RECORD_USAGE_LINE && done) {
      const u = (l.usage ?? {}) as Line;
      done.tokens = { input: num(u.input_tokens), output: num(u.output_tokens) };
    }
  }
  return turns;
}
