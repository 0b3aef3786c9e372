import type { AgentBackend } from '../agents/agent-backend.js';
import { RaymondError } from '../errors.js';

/**
 * The model and effort of a markdown state's turn: its frontmatter's, else
 * the run's (`--model`, `--effort`, the config's), each checked by the
 * state's backend. A run-wide value is named as such in the refusal: the
 * run checked it against every backend it may use, and another of them
 * may take it.
 * @throws RaymondError ERR_MODEL when the backend takes neither.
 */
export function stateModel(
  backend: AgentBackend,
  own: { model?: string; effort?: string },
  run: { model?: string; effort?: string },
  where: string,
): { model?: string; effort?: string } {
  const model = own.model ?? run.model;
  const effort = own.effort ?? run.effort;
  const said = (problem: string | undefined, fromState: boolean, flag: string) =>
    problem === undefined || fromState
      ? problem
      : `${flag}: ${problem} (this state's workflow runs on ${backend.title})`;
  const problem =
    (model === undefined
      ? undefined
      : said(backend.modelProblem(model), own.model !== undefined, '--model')) ??
    (effort === undefined
      ? undefined
      : said(backend.effortProblem(effort), own.effort !== undefined, '--effort'));
  if (problem !== undefined) throw new RaymondError('ERR_MODEL', problem, { file: where });
  return { ...(model === undefined ? {} : { model }), ...(effort === undefined ? {} : { effort }) };
}
