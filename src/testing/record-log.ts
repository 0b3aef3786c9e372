import { loggedStep } from '../state/transition-log.js';

/** What a run's `transitions.log` (src/state/debug-log.ts) tells `raymond record`. */
export interface RunLog {
  /** The input the run started with, when the log has it. */
  input?: string;
  /** Each state an agent ran (its step ended, or failed), in order. */
  steps: Array<{ agent: string; state: string; kind: string }>;
  /** Each ask answered, in order, with the state that asked. */
  answers: Array<{ agent: string; state: string; text: string }>;
}

// The lines of transitionLine(), after the timestamp. Agent ids hold no `]` nor spaces.
const ANSWERED = /^\[(\S+)\] ask \S+ answered: (".*")$/;
const INPUT = /^run input: (".*")$/;

/**
 * Reads transitions.log: the steps per agent, the asks' answers (an answer
 * belongs to the state whose step ended with its agent's `<ask>`), and the
 * run's input. Lines it does not know are skipped: the log is for people too.
 */
export function parseTransitions(text: string): RunLog {
  const log: RunLog = { steps: [], answers: [] };
  const asking = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\S+ /, '');
    const step = loggedStep(raw);
    let m: RegExpExecArray | null;
    if (step && step.kind !== 'paused') {
      log.steps.push({ agent: step.agent, state: step.state, kind: step.kind });
      if (step.kind === 'ask') asking.set(step.agent, step.state);
    } else if ((m = ANSWERED.exec(line))) {
      const state = asking.get(m[1]!);
      const text = jsonString(m[2]!);
      if (state !== undefined && text !== undefined)
        log.answers.push({ agent: m[1]!, state, text });
    } else if ((m = INPUT.exec(line)) && log.input === undefined) {
      log.input = jsonString(m[1]!);
    }
  }
  return log;
}

function jsonString(text: string): string | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A markdown step's stream file: `<agent>_<state stem>_<NNN>.jsonl`. */
export interface StreamFile {
  name: string;
  agent: string;
  stem: string;
  step: number;
}

/**
 * The stream files of a debug folder, in step order. Agent ids and state
 * names both may hold `_`: a name is split at the longest known agent id
 * whose rest is a known state stem. Names that match none are left out.
 */
export function streamFiles(
  names: readonly string[],
  agents: readonly string[],
  stems: ReadonlySet<string>,
): StreamFile[] {
  const byLength = [...agents].sort((a, b) => b.length - a.length);
  const out: StreamFile[] = [];
  for (const name of names) {
    const m = /^(.+)_(\d{3,})\.jsonl$/.exec(name);
    if (!m) continue;
    const agent = byLength.find(
      (a) => m[1]!.startsWith(`${a}_`) && stems.has(m[1]!.slice(a.length + 1)),
    );
    if (agent) out.push({ name, agent, stem: m[1]!.slice(agent.length + 1), step: Number(m[2]) });
  }
  return out.sort((a, b) => a.step - b.step);
}
