import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { jsonSchemaOf } from '../serve/request-schemas.js';
import type { WorkflowEntry } from '../scope/workflow-manifest.js';
import { toolNamesOf } from './tool-names.js';
import { ANSWER_ARGS, CANCEL_ARGS, RUN_REPORT, STATUS_ARGS, workflowArgs } from './tool-schemas.js';

/** The JSON Schema of every tool's structured result. */
const OUTPUT = jsonSchemaOf(RUN_REPORT) as Tool['outputSchema'];
const args = (s: Parameters<typeof jsonSchemaOf>[0]) => jsonSchemaOf(s) as Tool['inputSchema'];

/** What a tool's description says of waiting, with the server's cap. */
function waiting(waitSeconds: number): string {
  return `The call waits up to ${waitSeconds} s for the run to finish and returns its result; a longer run goes on and the call returns its run_id, to follow with raymond_status. If the run asks a question, it is put to the person in place when the client can, else returned with an ask_id for raymond_answer.`;
}

/** A workflow as a tool: its id as the name, its manifest's description, its input block as the arguments. */
export function workflowTool(entry: WorkflowEntry, name: string, waitSeconds: number): Tool {
  const about = entry.description || `Runs the Raymond workflow "${entry.name}".`;
  return {
    name,
    title: entry.name,
    description: `${about}\n\n${waiting(waitSeconds)}${entry.requires_human_input ? ' This workflow asks a person questions while it runs.' : ''}`,
    inputSchema: args(workflowArgs(entry)),
    outputSchema: OUTPUT,
    annotations: { title: entry.name, readOnlyHint: false, openWorldHint: true },
  };
}

/** The tools that follow a run a workflow tool started. */
export function followTools(waitSeconds: number): Tool[] {
  return [
    {
      name: 'raymond_status',
      title: 'Raymond run status',
      description: `Reports a Raymond run started by a workflow tool: its status, cost, result, and any question it waits on. Waits up to wait_seconds (default and most: ${waitSeconds} s) for it to finish or ask; 0 returns at once.`,
      inputSchema: args(STATUS_ARGS),
      outputSchema: OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'raymond_answer',
      title: 'Answer a Raymond run',
      description: `Answers a question (ask_id) a Raymond run waits on, with the person's answer, then follows the run as raymond_status does. A cost gate question takes yes, stop, or a new amount in USD.`,
      inputSchema: args(ANSWER_ARGS),
      outputSchema: OUTPUT,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    {
      name: 'raymond_cancel',
      title: 'Cancel a Raymond run',
      description:
        'Stops a Raymond run: its steps are stopped and it ends as cancelled (it can still be resumed by hand with raymond --resume).',
      inputSchema: args(CANCEL_ARGS),
      outputSchema: OUTPUT,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
  ];
}

/** The served workflows by tool name. */
export function workflowsByTool(entries: readonly WorkflowEntry[]): Map<string, WorkflowEntry> {
  const names = toolNamesOf(entries.map((e) => e.id));
  return new Map(entries.map((e) => [names.get(e.id)!, e]));
}
