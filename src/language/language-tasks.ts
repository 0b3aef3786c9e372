import { RaymondError, errorMessage, type Outcome } from '../errors.js';
import { parseStateSource, type Policy } from './frontmatter.js';
import { interpretOutput, type Interpretation, type InterpretTask } from './interpret.js';
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

export type LanguageTask = PrepareTask | InterpretTask;

/**
 * Runs one parsing or rendering task. Used by the pool worker and by the
 * inline service alike, so both give the same answers. Errors come back as
 * data: a thrown error would lose its class crossing the thread boundary.
 */
export function runLanguageTask(task: LanguageTask): Outcome<Prepared | Interpretation> {
  try {
    if (task.op === 'prepare') {
      const source = parseStateSource(task.text, task.file);
      return {
        ok: true,
        value: {
          policy: source.policy,
          prompt: renderTemplate(source.body, task.variables),
          warnings: source.warnings,
        },
      };
    }
    return { ok: true, value: interpretOutput(task) };
  } catch (err) {
    if (err instanceof RaymondError) return { ok: false, error: err.toJSON() };
    return { ok: false, error: { code: 'ERR_INTERNAL', message: errorMessage(err) } };
  }
}
