import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import type { Inspection } from '../inspect/inspection.js';
import type { LiveControl } from '../web/live-routes.js';
import { DEFAULT_INSPECT_PORT } from './options.js';
import type { CliFlags } from './flag-settings.js';

/**
 * Opens the relay and/or trace the flags ask for, prints where to look, and
 * with --inspect-wait holds the run until a browser opened a page. The live
 * page's URL comes first: it works offline, the Stately inspector does not.
 */
export async function startInspection(
  flags: CliFlags,
  graph: () => Promise<WorkflowGraph | undefined>,
  control: () => LiveControl | undefined,
): Promise<Inspection | undefined> {
  if (flags.inspect === undefined && flags.trace === undefined) return undefined;
  const port =
    flags.inspect === undefined
      ? undefined
      : typeof flags.inspect === 'number'
        ? flags.inspect
        : DEFAULT_INSPECT_PORT;
  // Loaded only when asked for: the inspector's libraries are not small.
  const { openInspection } = await import('../inspect/inspection.js');
  // The graph of the workflow the command opened: drawing it opens nothing again.
  const diagram = async () => {
    const g = await graph();
    if (g === undefined) return undefined;
    const { diagramSvgFile } = await import('../analysis/diagram-html.js');
    return diagramSvgFile(g);
  };
  const inspection = await openInspection({
    port,
    trace: flags.trace,
    full: !!flags.inspectFull,
    agents: flags.inspectAgents,
    live: { diagram, control },
  });
  if (inspection.page) {
    process.stderr.write(
      `raymond: inspector relay on 127.0.0.1:${port}: open ${inspection.page.liveUrl} to watch the agent machines (Raymond's live view, works offline), or ${inspection.page.url} for the Stately inspector (needs internet)\n`,
    );
    if (flags.inspectWait) {
      process.stderr.write(
        'raymond: waiting for the inspector page to connect (Ctrl-C to give up)\n',
      );
      await inspection.page.viewer();
    }
  }
  return inspection;
}
