import type { RunEvent } from '../../../machines/run-events.js';
import { el, money, $ } from './page-helpers.js';
import { widthText } from '../../../machines/width-text.js';

/** How many lines the log keeps: older ones go, so a long run keeps the page light. */
const LOG_MAX = 500;

/** The log line of an event and its class, or null for events the log does not show. */
function logText(e: RunEvent): [string, string] | null {
  switch (e.type) {
    case 'run.started':
      return [(e.resumed ? 'resumed ' : 'started ') + e.workflowId, ''];
    case 'step.done': {
      const d = e.decision;
      const where = e.to === null ? (d.kind === 'result' ? 'result' : 'ended') : e.to;
      const workers = e.workers.length
        ? ' (+' + e.workers.length + ' worker' + (e.workers.length === 1 ? '' : 's') + ')'
        : '';
      return [
        '[' +
          e.agentId +
          '] ' +
          e.from +
          ' → ' +
          where +
          ' <' +
          d.kind +
          '>' +
          workers +
          (e.costUsd ? ' ' + money(e.costUsd) : ''),
        '',
      ];
    }
    case 'print':
      return ['[' + e.agentId + '] ' + e.text, 'print'];
    case 'warning':
      return ['warning: ' + e.text, 'warning'];
    case 'width.changed':
      return [widthText(e), e.why === 'recovering' || e.why === 'paced' ? '' : 'warning'];
    case 'permission.denied':
      return ['[' + e.agentId + '] denied: ' + e.shown, 'denied'];
    case 'agent.paused':
      return ['[' + e.agentId + '] paused at ' + e.state + ': ' + e.failure.message, 'failed'];
    case 'agent.failed':
      return ['[' + e.agentId + '] failed at ' + e.state + ': ' + e.failure.message, 'failed'];
    case 'agent.joined':
      return [
        '[' + e.agentId + '] joined ' + e.workers + ' worker(s); continues at ' + e.state,
        '',
      ];
    case 'ask.created':
    case 'ask.pending':
      return [
        '[' + e.ask.agent_id + '] asks (' + e.ask.id + '): ' + e.ask.prompt.split('\n')[0],
        'ask',
      ];
    case 'ask.answered':
      return [
        '[' + e.agentId + '] ' + e.askId + (e.expired ? ' ran out of time' : ' answered'),
        'ask',
      ];
    case 'run.finished':
      return [
        'run ' +
          (e.status === 'running' ? 'stopped' : e.status) +
          (e.error ? ': ' + e.error : '') +
          ', ' +
          e.steps +
          ' steps, ' +
          money(e.totalCostUsd),
        e.status === 'completed' ? '' : 'failed',
      ];
    default:
      return null;
  }
}

/** Appends an event's line to the log, following the end if the reader was there. */
export function log(e: RunEvent): void {
  const line = logText(e);
  if (!line) return;
  const list = $('log');
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  list.appendChild(el('li', line[1], line[0]));
  while (list.childElementCount > LOG_MAX) list.firstElementChild!.remove();
  if (atEnd) list.scrollTop = list.scrollHeight;
}
