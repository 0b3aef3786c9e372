import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { diagramSvgFile } from '../analysis/diagram-html.js';
import { loadWorkflowGraph } from '../analysis/workflow-graph.js';
import { formatError } from '../errors.js';
import { runWideProblem } from '../runtime/run-preflight.js';
import { openScope } from '../scope/scope.js';
import type { CostRow } from '../../machines/cost-table.js';
import { runCostsOf } from '../history/run-steps.js';
import { projectRootOf } from '../task-folder-pattern.js';
import { readStateFile } from '../state/state-file.js';
import { HttpError, sendJson } from './http-error.js';
import { createRunBody, readRequestBody, type CreateRun } from './request-schemas.js';
import { pendingAskJson, runJson, workflowJson } from './run-json.js';
import { liveSnapshotOf } from './run-live-view.js';
import type { Handler, ServeContext } from './serve-context.js';
import type { ServedRun } from './served-run.js';
import { streamRunOutput } from './sse-stream.js';

/** The run a path names, or a 404 `run_not_found`. */
export function runOf(ctx: ServeContext, id: string): ServedRun {
  const run = ctx.pool.get(id);
  if (!run) throw new HttpError(404, 'run_not_found', `run "${id}" not found`);
  return run;
}

export const listWorkflows: Handler = (ctx, _req, res) =>
  sendJson(res, 200, ctx.registry.list().map(workflowJson));

export const getWorkflow: Handler = (ctx, _req, res, p) => {
  const w = ctx.registry.get(p.id!);
  if (!w) throw new HttpError(404, 'workflow_not_found', `workflow "${p.id}" not found`);
  sendJson(res, 200, workflowJson(w));
};

export const rescanWorkflows: Handler = async (ctx, _req, res) =>
  sendJson(res, 200, (await ctx.registry.rescan()).map(workflowJson));

/** `working_directory` of a request: an existing folder, inside `--workdir` when one was given. */
async function workingDirectory(ctx: ServeContext, asked: string | undefined): Promise<string> {
  const base = ctx.workdir ?? ctx.cwd;
  const dir = asked === undefined ? base : resolve(base, asked);
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined || !(await stat(real)).isDirectory())
    throw new HttpError(
      400,
      'bad_working_directory',
      `working_directory "${asked ?? dir}" is not a folder`,
    );
  if (ctx.workdir !== undefined) {
    const rel = relative(await realpath(ctx.workdir), real);
    if (rel.startsWith('..') || isAbsolute(rel))
      throw new HttpError(
        403,
        'workdir_outside',
        `working_directory "${asked}" is outside --workdir ${ctx.workdir}`,
      );
  }
  return real;
}

/** A string field of a body: empty text and null stand for "not given". */
const givenText = (v: string | null | undefined): string | undefined =>
  v === null || v === '' ? undefined : v;

/**
 * Starts a run as `POST /runs` asks (also what `--launch ID` does, with
 * only the id), after checking what the body's schema cannot: the workflow,
 * its input, the model and effort (its backends') and the folder.
 */
export async function startRun(ctx: ServeContext, body: CreateRun): Promise<ServedRun> {
  if (!ctx.pool.open)
    throw new HttpError(503, 'shutting_down', 'the server is shutting down; no new runs');
  const id = body.workflow_id;
  const entry = ctx.registry.get(id);
  if (!entry) throw new HttpError(404, 'workflow_not_found', `workflow "${id}" not found`);
  const input = givenText(body.input) ?? '';
  if (entry.input.mode === 'required' && input === '')
    throw new HttpError(400, 'input_required', 'workflow requires non-empty input');
  if (entry.input.mode === 'none' && input !== '')
    throw new HttpError(400, 'input_not_accepted', 'workflow does not accept input');
  const budget = body.budget ?? 0;
  const model = givenText(body.model);
  const effort = givenText(body.effort);
  const refused = await launchProblem(entry.path, { model, effort });
  if (refused) throw new HttpError(400, 'bad_request', `${refused[0]}: ${refused[1]}`);
  const env = body.environment ?? {};
  const cwd = await workingDirectory(
    ctx,
    givenText(body.working_directory) ?? entry.working_directory,
  );
  return ctx.pool.launch({
    workflowId: entry.id,
    path: entry.path,
    input,
    cwd,
    settings: {
      ...ctx.baseSettings,
      // Request, then manifest, then the server's (config, flag): 0 in the request or the manifest means "not given", as in `ray`.
      budgetUsd:
        budget > 0
          ? budget
          : entry.default_budget > 0
            ? entry.default_budget
            : ctx.defaultBudgetUsd,
      ...(body.budget_hard != null && { budgetHard: body.budget_hard }),
      ...(model !== undefined ? { model } : {}),
      ...(effort !== undefined ? { effort } : {}),
      environment: { ...entry.environment, ...env },
      onAsk: 'prompt',
    },
  });
}

/** `POST /runs`: 201 with `run_id`, `status`, `started_at`; the run goes on in the background. */
export const createRun: Handler = async (ctx, req, res) => {
  const run = await startRun(ctx, await readRequestBody(req, createRunBody));
  sendJson(res, 201, {
    run_id: run.id,
    status: run.status,
    started_at: new Date(run.startedAt).toISOString(),
  });
};

/**
 * `GET /runs`: every run, newest first. `?summary=true` (Raymond's, for the
 * web page that polls it) leaves out the agents, which a fan-out makes
 * thousands of, and counts them instead.
 */
export const listRuns: Handler = (ctx, _req, res, _p, url) => {
  const summary = url.searchParams.get('summary') === 'true';
  sendJson(
    res,
    200,
    ctx.pool.list().map((run) => {
      const json = runJson(run);
      if (!summary) return json;
      const { agents, ...rest } = json;
      return { ...rest, agent_count: agents.length };
    }),
  );
};

export const getRun: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  sendJson(res, 200, runJson(run, await costsOf(run)));
};

/** A run's cost by state: live while this server follows it; for a run it did not follow step by step (found in the pool at start), from the history. */
async function costsOf(run: ServedRun): Promise<CostRow[]> {
  return (
    (run.byState.size === 0 ? await historyCosts(run) : undefined) ?? run.byState.rows(run.costUsd)
  );
}

/** A run's cost by state from the project's run history, if it has the run. */
async function historyCosts(run: ServedRun): Promise<CostRow[] | undefined> {
  try {
    const { scope } = await readStateFile(run.stateFile, run.id);
    return (await runCostsOf(projectRootOf(run.stateFile), run.id, scope))?.byState;
  } catch {
    return undefined;
  }
}

/** `GET /runs/{id}/snapshot`: the run, its pending asks and the last event id, in one answer, for a page that then follows `output`; `live` is the same run as the web page reads it. */
export const runSnapshot: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  const asks = await Promise.all(
    [...run.asks.values()].map(async (a) =>
      pendingAskJson(run.id, a, await ctx.staging.pending(run, a.id)),
    ),
  );
  const costs = await costsOf(run);
  sendJson(res, 200, {
    run: runJson(run, costs),
    pending_asks: asks,
    last_event_id: run.events.lastId,
    live: liveSnapshotOf(run, costs),
  });
};

export const runOutput: Handler = (ctx, req, res, p, url) =>
  streamRunOutput(req, res, runOf(ctx, p.id!), url);

/** `POST /runs/{id}/cancel`: stops the run's steps; it is `cancelled` (and stays resumable by hand). */
export const cancelRun: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  if (run.ended)
    throw new HttpError(409, 'run_not_active', `run "${run.id}" already ended (${run.status})`);
  await ctx.pool.cancel(run);
  // It ended by itself as the cancel came (its state file says so): reported as it ended, not as cancelled.
  if (run.status !== 'cancelled')
    throw new HttpError(
      409,
      'run_not_active',
      `run "${run.id}" ended (${run.status}) before it could be cancelled`,
    );
  sendJson(res, 200, { run_id: run.id, status: run.status });
};

/** `GET /runs/{id}/diagram.svg`: the run's workflow as `raymond diagram --html` draws it, with its style. */
export const runDiagram: Handler = async (ctx, _req, res, p) => {
  const run = runOf(ctx, p.id!);
  const graph = await loadWorkflowGraph(run.workflowPath).catch((err: unknown) => {
    throw new HttpError(
      404,
      'workflow_unreadable',
      `cannot draw the workflow of run "${run.id}": ${formatError(err)}`,
    );
  });
  // The standalone SVG, its style inside: the page shows it as it is, and so does a browser opening it alone.
  const svg = diagramSvgFile(graph);
  res.writeHead(200, {
    'Content-Type': 'image/svg+xml; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'Cache-Control': 'no-store',
  });
  res.end(svg);
};

/**
 * Why a launch's model or effort is no backend's of the run (its workflow's,
 * and those its cross-workflow tags name), as the run's own check would
 * say; nothing to check when neither is given, nor when the workflow does
 * not open (the run then fails, saying why).
 */
async function launchProblem(
  path: string,
  values: { model?: string; effort?: string },
): Promise<[key: string, problem: string] | undefined> {
  if (values.model === undefined && values.effort === undefined) return undefined;
  const scope = await openScope(path).catch(() => undefined);
  if (!scope) return undefined;
  try {
    return await runWideProblem(scope, values);
  } finally {
    await scope.dispose();
  }
}
