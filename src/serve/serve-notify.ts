import type { RunEvent } from '../../machines/run-events.js';
import { askNotification, runNotification, type NotifiedRun } from '../notify/notification.js';
import type { Notifier } from '../notify/notifier.js';
import type { ServedRun } from './served-run.js';

/**
 * Tells the server's notification hooks about its runs, as the CLI does
 * for its own: each ask as it is asked, and how each run ended (`asking`
 * included). The resume hint is the HTTP way to go on.
 */
export function serveNotifications(notifier: Notifier): (run: ServedRun, e: RunEvent) => void {
  const started = new Map<string, Extract<RunEvent, { type: 'run.started' }>>();
  const about = (run: ServedRun): NotifiedRun | undefined => {
    const s = started.get(run.id);
    return (
      s && {
        runId: run.id,
        workflow: s.workflow,
        name: s.name,
        resume: `POST /runs/${run.id}/asks/{ask_id} (or raymond --resume ${run.id} --state-dir ${run.stateFile.replace(/[/\\][^/\\]+$/, '')})`,
      }
    );
  };
  return (run, e) => {
    if (e.type === 'run.started') started.set(run.id, e);
    const info = about(run);
    if (!info) return;
    if (e.type === 'ask.created') notifier.send(askNotification(e.ask, info));
    if (e.type === 'run.finished') {
      const results = Object.fromEntries(
        [...run.agents.values()]
          .filter((a) => a.result !== undefined)
          .map((a) => [a.id, a.result!]),
      );
      const n = runNotification(e, info, results);
      if (n) notifier.send(n);
      started.delete(run.id);
    }
  };
}
