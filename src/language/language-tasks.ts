import { RaymondError, type Outcome } from '../errors.js';
import type { Decision } from '../../machines/types.js';
import { decide } from './decide.js';
import { parseStateSource, type Policy } from './frontmatter.js';
import { parseOutput } from './parse-output.js';
import { renderTemplate } from './render.js';

/** Split a markdown state into policy and rendered prompt. */
export interface PrepareTask {
  op: 'prepare';
  text: string;
  file: string;
  variables: Record<string, string>;
}

export interface Prepared {
  policy: Policy;
  prompt: string;
  warnings: string[];
}

/** Read the transition out of a state's output. */
export interface InterpretTask {
  op: 'interpret';
  output: string;
  file: string;
}

export interface Interpretation {
  decision: Decision;
  prints: string[];
}

export type LanguageTask = PrepareTask | InterpretTask;
export type LanguageResult<T extends LanguageTask> = T extends PrepareTask ? Prepared : Interpretation;

/**
 * Runs one parsing or rendering task. Used by the pool worker and by the
 * inline service alike, so both give the same answers. Errors come back as
 * data: a thrown error would lose its class crossing the thread boundary.
 */
export function runLanguageTask(task: LanguageTask): Outcome<Prepared | Interpretation> {
  try {
    if (task.op === 'prepare') {
      const source = parseStateSource(task.text, task.file);
      return { ok: true, value: { policy: source.policy, prompt: renderTemplate(source.body, task.variables), warnings: source.warnings } };
    }
    const parsed = parseOutput(task.output, task.file);
    return { ok: true, value: { decision: decide(parsed.tags, task.file), prints: parsed.prints } };
  } catch (err) {
    if (err instanceof RaymondError) return { ok: false, error: err.toJSON() };
    return { ok: false, error: { code: 'ERR_INTERNAL', message: err instanceof Error ? err.message : String(err) } };
  }
}
