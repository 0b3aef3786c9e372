import { writeFile } from 'node:fs/promises';
import { diagramHtml } from '../analysis/diagram-html.js';
import { diagramModel } from '../analysis/diagram-model.js';
import { toMermaid } from '../analysis/mermaid.js';
import { loadWorkflowGraph } from '../analysis/workflow-graph.js';
import { xstateMachine } from '../analysis/xstate-export.js';
import { RaymondError } from '../errors.js';
import { EXIT } from './exit-codes.js';

/** Options of `raymond diagram`. */
export interface DiagramOptions {
  /** Write a self-contained HTML page here. */
  html?: string;
  /** Write an XState machine config (JSON) here. */
  xstate?: string;
  /** Show the `.bat`/`.ps1` states, as on Windows, instead of this platform's. */
  win?: boolean;
}

async function write(file: string, text: string): Promise<string> {
  await writeFile(file, text).catch((err: NodeJS.ErrnoException) => {
    throw new RaymondError('ERR_USAGE', `cannot write: ${err.code ?? err.message}`, { file });
  });
  return `wrote ${file}`;
}

/**
 * `raymond diagram PATH`: the workflow as a Mermaid flowchart on stdout, or
 * with `--html` / `--xstate` written to those files (each named on stdout).
 * Nothing runs; a workflow with problems is drawn as it is, so `raymond
 * lint` and the picture can be read side by side.
 */
export async function diagramCommand(path: string, opts: DiagramOptions): Promise<number> {
  const graph = await loadWorkflowGraph(path, opts.win ? { platform: 'win32' } : {});
  if (opts.html === undefined && opts.xstate === undefined) {
    process.stdout.write(toMermaid(diagramModel(graph)));
    return EXIT.completed;
  }
  const lines: string[] = [];
  if (opts.html !== undefined) lines.push(await write(opts.html, diagramHtml(graph)));
  if (opts.xstate !== undefined)
    lines.push(await write(opts.xstate, `${JSON.stringify(xstateMachine(graph), null, 2)}\n`));
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.completed;
}
