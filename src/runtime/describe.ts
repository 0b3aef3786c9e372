import type { SupervisorEmitted } from '../../machines/supervisor.machine.js';

/** Shortens a payload to one line for progress output. */
export function preview(text: string, max = 100): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

function attrs(a: Record<string, string>): string {
  const parts = Object.entries(a).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return parts.length ? ` ${parts.join(' ')}` : '';
}

/** One progress line for a completed step. */
export function describeStep(e: Extract<SupervisorEmitted, { type: 'report.step' }>): string {
  const d = e.decision;
  const head = `[${e.agentId}] ${e.from} ->`;
  const input = (i: string | undefined) => (i === undefined ? '' : ` (input: ${preview(i, 60)})`);
  switch (d.kind) {
    case 'goto':
      return `${head} goto ${d.target}${input(d.input)}`;
    case 'reset':
      return `${head} reset ${d.target}${d.cd ? ` in ${d.cd}` : ''}${input(d.input)}`;
    case 'call':
    case 'function':
      return `${head} ${d.kind} ${d.target}, returning to ${d.returnTo}${input(d.input)}`;
    case 'fork': {
      const workers = e.spawned.map((w) => `${w.id} (${w.state}${attrs(w.attributes)})`).join(', ');
      return `${head} fork ${workers}; continues at ${d.next}`;
    }
    case 'result':
      return e.record.status === 'terminated'
        ? `${head} result: ${preview(d.payload)}`
        : `${head} result to ${e.record.state}: ${preview(d.payload)}`;
  }
}
