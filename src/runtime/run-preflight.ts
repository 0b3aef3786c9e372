import type { AgentBackend } from '../agents/agent-backend.js';
import { backendOf } from '../agents/registry/registry.js';
import { RaymondError } from '../errors.js';
import type { StateExecutor } from '../executors/executor.js';
import { parseStateSource } from '../language/frontmatter.js';
import { isMarkdown } from '../scope/extensions.js';
import type { Scope } from '../scope/scope.js';
import { reachableBackends } from '../scope/reachable-backends.js';
import { checkQueue } from './queue-check.js';
import type { RunSettings } from '../settings/run-settings.js';
import { layeredGrant } from './state-grant.js';

// The checks a run passes before anything is written (its agent CLI, its grants): kept apart from
// start-run.ts, which opens, locks and composes the run once they pass.

/**
 * A run needs its agent CLI before anything is written: Claude Code when it
 * begins with a markdown state (a folder may hold markdown files no state
 * reaches, a README say, so other runs find out at their first markdown
 * step), and the backend a workflow declares whenever it runs (again on
 * every resume).
 */
export async function checkBackend(
  scope: Scope,
  first: string[],
  settings: RunSettings,
  markdown: StateExecutor | undefined,
): Promise<void> {
  const backend = backendOf(scope.backend);
  if (
    settings.model !== undefined ||
    settings.effort !== undefined ||
    settings.fallbackModels !== undefined
  )
    await checkRunWide(scope, settings);
  await checkGrants(scope, settings, backend);
  // A queued run's turns run on the workers, which look for their CLI themselves; its queue is checked instead.
  if (settings.queue) checkQueue(settings.queue);
  else if (markdown) return;
  else if (scope.backend || first.some(isMarkdown))
    await backend.preflight(
      { ...process.env, ...settings.environment },
      settings.backendSettings ?? {},
    );
}

/**
 * The run-wide `--model` and `--effort` (a config's, a resume's) against the
 * backends the run may use: its workflow's and those its cross-workflow
 * tags name. Some must take each; each state's own backend checks it again
 * when the state runs.
 */
async function checkRunWide(scope: Scope, settings: RunSettings): Promise<void> {
  const refused = await runWideProblem(scope, settings);
  if (refused)
    throw new RaymondError('ERR_USAGE', `--${refused[0].replace('_', '-')}: ${refused[1]}`);
}

/**
 * Why a run-wide model or effort is no backend's of this run (its
 * workflow's, and those its cross-workflow tags name), if it is not: which
 * of the two, and the problem. Also what `raymond serve` checks a launch's
 * `model` and `effort` with, before it starts the run.
 */
export async function runWideProblem(
  scope: Scope,
  values: { model?: string; effort?: string; fallbackModels?: readonly string[] },
): Promise<[key: 'model' | 'effort' | 'fallback_models', problem: string] | undefined> {
  const byName = new Map<string, AgentBackend>();
  for (const spec of await reachableBackends(scope)) {
    const backend = backendOf(spec);
    byName.set(backend.name, backend);
  }
  const backends = [...byName.values()];
  const modelOf = (b: AgentBackend, v: string) => b.modelProblem(v);
  for (const [key, value, problemOf] of [
    ['model', values.model, modelOf],
    ...(values.fallbackModels ?? []).map((m) => ['fallback_models', m, modelOf] as const),
    ['effort', values.effort, (b: AgentBackend, v: string) => b.effortProblem(v)],
  ] as const) {
    if (value === undefined) continue;
    const problems = backends.map((b) => [b, problemOf(b, value)] as const);
    if (problems.some(([, problem]) => problem === undefined)) continue;
    const [only] = problems;
    return [
      key,
      problems.length === 1
        ? `${only![1]} (this workflow runs on ${only![0].title})`
        : `no backend of this run takes it (${problems.map(([b, p]) => `${b.title}: ${p}`).join('; ')})`,
    ];
  }
  return undefined;
}

/**
 * Every markdown state's grant against the workflow's backend, before
 * anything is written: a key the backend cannot honour refuses the run
 * with the line lint gives. A frontmatter that does not parse is left to
 * the step that runs it.
 */
async function checkGrants(
  scope: Scope,
  settings: RunSettings,
  backend: AgentBackend,
): Promise<void> {
  for (const file of scope.stateFiles().filter(isMarkdown)) {
    let policy;
    try {
      policy = parseStateSource(await scope.readText(file), file).policy;
    } catch {
      continue;
    }
    const problem = backend.grantProblem(layeredGrant(settings.grant, scope.grant, policy.grant));
    if (problem !== undefined)
      throw new RaymondError('ERR_GRANT', problem, { file: scope.display(file) });
  }
}
