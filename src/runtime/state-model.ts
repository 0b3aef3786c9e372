import type { AgentBackend } from '../agents/agent-backend.js';
import { RaymondError } from '../errors.js';

/** What a markdown state's turn asks for: its model, the models it goes on with, its effort. */
export interface StateModel {
  model?: string;
  /** In order, when the model is overloaded or unavailable; absent: none. */
  fallbackModels?: string[];
  effort?: string;
}

/**
 * The model, fallback models and effort of a markdown state's turn: its
 * frontmatter's, else the run's (`--model`, `--fallback-models`,
 * `--effort`, the config's), each checked by the state's backend. A
 * run-wide value is named as such in the refusal: the run checked it
 * against every backend it may use, and another of them may take it.
 * @throws RaymondError ERR_MODEL when the backend takes one of them not.
 */
export function stateModel(
  backend: AgentBackend,
  own: StateModel,
  run: StateModel,
  where: string,
): StateModel {
  const model = own.model ?? run.model;
  const fallbackModels = own.fallbackModels ?? run.fallbackModels;
  const effort = own.effort ?? run.effort;
  const said = (problem: string | undefined, fromState: boolean, flag: string) =>
    problem === undefined || fromState
      ? problem
      : `${flag}: ${problem} (this state's workflow runs on ${backend.title})`;
  const modelProblem = (m: string | undefined, fromState: boolean, flag: string) =>
    m === undefined ? undefined : said(backend.modelProblem(m), fromState, flag);
  // A state's own list is named by its key; the run's by its flag, with the backend that refused it.
  const fallbackProblem = (m: string) => {
    const p = backend.modelProblem(m);
    if (p === undefined || own.fallbackModels === undefined)
      return said(p, false, '--fallback-models');
    return `fallback_models: ${p}`;
  };
  const problem =
    modelProblem(model, own.model !== undefined, '--model') ??
    (fallbackModels ?? []).map(fallbackProblem).find((p) => p !== undefined) ??
    (effort === undefined
      ? undefined
      : said(backend.effortProblem(effort), own.effort !== undefined, '--effort'));
  if (problem !== undefined) throw new RaymondError('ERR_MODEL', problem, { file: where });
  return {
    ...(model === undefined ? {} : { model }),
    ...(fallbackModels === undefined || fallbackModels.length === 0 ? {} : { fallbackModels }),
    ...(effort === undefined ? {} : { effort }),
  };
}
