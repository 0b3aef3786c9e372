import type { RunEvent } from '../../machines/run-events.js';

/** One tool call a turn's permissions (or its state's `tools`) refused: the tool and its input as the model gave it. */
export interface ToolDenial {
  tool: string;
  input: Record<string, unknown>;
}

/** The input field that says what a tool call does: its command, its file, ... (first line). */
export function toolDetail(input: Record<string, unknown>): string {
  const pick = ['command', 'file_path', 'path', 'pattern', 'url', 'description']
    .map((k) => input[k])
    .find((v): v is string => typeof v === 'string');
  return (pick ?? '').split('\n')[0]!;
}

/** A denied call as shown: `Bash(git commit -m …)`. */
export function describeDenial(d: ToolDenial): string {
  const detail = toolDetail(d.input);
  return detail ? `${d.tool}(${detail.length > 80 ? `${detail.slice(0, 79)}…` : detail})` : d.tool;
}

/** The event a denied call makes as it happens, the same for every backend that reports one. */
export function denialEvent(
  agentId: string,
  state: string,
  denial: ToolDenial,
): Extract<RunEvent, { type: 'permission.denied' }> {
  return {
    type: 'permission.denied',
    agentId,
    state,
    tool: denial.tool,
    input: denial.input,
    shown: describeDenial(denial),
  };
}
