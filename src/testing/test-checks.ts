import { usd } from '../../machines/money.js';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { STATUS_EXIT } from '../runtime/status-exit.js';
import type { RunOutcome } from '../runtime/run-types.js';
import { pathEntry } from './path-entry.js';
import { scratchPath } from './scratch-paths.js';
import { stateStem } from './test-file.js';

import type { Expect, TextCheck } from './test-spec-schema.js';

/** The first way a run differed from its test: what, what was expected and what came, where, and what the model saw there. */
export interface Divergence {
  what: string;
  expected?: string;
  got?: string;
  /** The state whose turn led there. */
  state?: string;
  /** The prompt the model saw in that turn. */
  prompt?: string;
}

/** What a test run left to check. */
export interface RunRecord {
  outcome?: RunOutcome;
  /** The run could not start or broke: its one line. */
  failure?: string;
  /** Turns the test did not script, asks it did not answer: found while the run went. */
  problems: Divergence[];
  /** Per agent that failed or paused: how, in one line. */
  endings: Map<string, string>;
  /** Every agent of the run, the main one first. */
  agents: string[];
  /** Per agent: the stems of the states it ran, in order. */
  paths: Map<string, string[]>;
  /** Per agent: the kind of transition each of its steps took (`goto`, `join`...; `failed`, `stopped`), in step order. */
  kinds?: Map<string, Array<string | undefined>>;
  /** The prompt of an agent's step (0-based), when it was a markdown step. */
  promptOf(agent: string, index: number): string | undefined;
  /** The scratch working directory. */
  work: string;
}

/** A value as a divergence shows it. */
const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

function textFits(check: TextCheck, text: string): boolean {
  return typeof check === 'string' ? text === check : new RegExp(check.match).test(text);
}

const described = (check: TextCheck) =>
  typeof check === 'string' ? shown(check) : `/${check.match}/`;

/** The first step where an agent's path left the expected one: another state, or the same state leaving by another kind of transition. */
function pathDivergence(agent: string, want: string[], record: RunRecord): Divergence | undefined {
  const got = record.paths.get(agent) ?? [];
  const kinds = record.kinds?.get(agent) ?? [];
  const wanted = want.map(pathEntry);
  const k = wanted.findIndex((s, i) => s.state !== got[i]);
  const at = k === -1 ? (got.length > want.length ? want.length : -1) : k;
  if (at === -1) {
    // Same states: a step whose entry names a kind must have left by that kind.
    const i = wanted.findIndex((s, j) => s.kind !== undefined && kinds[j] !== s.kind);
    if (i === -1) return undefined;
    return {
      what: `agent ${agent}, step ${i + 1} (${wanted[i]!.state}): its transition`,
      expected: wanted[i]!.kind,
      got: kinds[i] ?? '(none)',
      state: wanted[i]!.state,
    };
  }
  const before = at > 0 ? got[at - 1] : undefined;
  const prompt = at > 0 ? record.promptOf(agent, at - 1) : undefined;
  return {
    what: `agent ${agent}, step ${at + 1}${before ? ` (after ${before})` : ''}`,
    expected: wanted[at] === undefined ? '(the agent ends)' : wanted[at].state,
    got:
      got[at] ??
      `(the agent ended${record.endings.has(agent) ? `, ${record.endings.get(agent)}` : ''})`,
    ...(before ? { state: before } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
  };
}

/** Checks the files the test names in the scratch working directory. */
function fileDivergence(files: NonNullable<Expect['files']>, work: string): Divergence | undefined {
  for (const [name, check] of Object.entries(files)) {
    const where = scratchPath(work, name);
    // Never read, nor shown, through a link out of the working directory.
    if (where.kind === 'outside')
      return {
        what: `file ${name}`,
        expected: check === null ? '(absent)' : described(check),
        got: "(a symbolic link out of the test's working directory: not read)",
      };
    const exists = where.kind === 'inside';
    if (check === null) {
      if (exists) return { what: `file ${name}`, expected: '(absent)', got: 'it exists' };
      continue;
    }
    if (!exists) return { what: `file ${name}`, expected: described(check), got: '(absent)' };
    if (!statSync(where.path).isFile())
      return { what: `file ${name}`, expected: described(check), got: '(a folder, not a file)' };
    const text = readFileSync(where.path, 'utf8');
    if (!textFits(check, text))
      return { what: `file ${name}`, expected: described(check), got: shown(text) };
  }
  return undefined;
}

/** Checks files on the branches of the scratch repository, read with `git show BRANCH:PATH`. */
function branchDivergence(
  branches: NonNullable<Expect['branches']>,
  work: string,
): Divergence | undefined {
  for (const [branch, files] of Object.entries(branches)) {
    for (const [name, check] of Object.entries(files)) {
      const text = gitShow(work, `${branch}:${name.replace(/^\.\//, '')}`);
      const what = `file ${name} on branch ${branch}`;
      if (check === null) {
        if (text !== undefined) return { what, expected: '(absent)', got: 'it exists' };
        continue;
      }
      if (text === undefined) return { what, expected: described(check), got: '(absent)' };
      if (!textFits(check, text)) return { what, expected: described(check), got: shown(text) };
    }
  }
  return undefined;
}

/** A file's text at a revision, or undefined when the branch or the file is not there. */
function gitShow(work: string, spec: string): string | undefined {
  try {
    return execFileSync('git', ['show', spec], { cwd: work, encoding: 'utf8', stdio: 'pipe' });
  } catch {
    return undefined;
  }
}

/**
 * The first divergence of a run from what its test expects, in the order
 * that finds causes before their effects: a run that did not start, a turn
 * not scripted, each agent's path, states never to reach, the number of
 * agents, status, exit code, results, files, files on branches, cost. Without `status` or
 * `exit`, a test expects the run to complete.
 */
export function checkTest(
  expect: Expect,
  record: RunRecord,
  clean: (text: string) => string,
): Divergence | undefined {
  const d = firstDivergence(expect, record);
  return (
    d && {
      ...d,
      ...(d.prompt !== undefined ? { prompt: clean(d.prompt) } : {}),
      what: clean(d.what),
    }
  );
}

function firstDivergence(expect: Expect, record: RunRecord): Divergence | undefined {
  const { outcome } = record;
  const paths = Object.entries(expect.paths ?? {}).flatMap(([agent, want]) => {
    const d = pathDivergence(agent, want, record);
    return d ? [d] : [];
  });
  // An agent that went somewhere else is the cause; a turn left unscripted there, its effect.
  const wentElsewhere = paths.find((d) => !d.got?.startsWith('(the agent ended'));
  if (wentElsewhere) return wentElsewhere;
  if (record.problems[0]) return record.problems[0];
  if (record.failure !== undefined || !outcome)
    return { what: `the run failed to run: ${record.failure ?? 'no outcome'}` };
  if (paths[0]) return paths[0];
  for (const never of expect.never ?? []) {
    for (const [agent, path] of record.paths) {
      const i = path.indexOf(stateStem(never));
      if (i !== -1) {
        const prompt = i > 0 ? record.promptOf(agent, i - 1) : undefined;
        return {
          what: `agent ${agent} reached ${stateStem(never)}, which the test says no agent reaches (step ${i + 1})`,
          ...(i > 0 ? { state: path[i - 1] } : {}),
          ...(prompt !== undefined ? { prompt } : {}),
        };
      }
    }
  }
  if (expect.agents !== undefined && expect.agents !== record.agents.length)
    return {
      what: 'the number of agents',
      expected: String(expect.agents),
      got: String(record.agents.length),
    };
  const status = outcome.status;
  const wantStatus = expect.status ?? (expect.exit === undefined ? 'completed' : undefined);
  if (wantStatus !== undefined && wantStatus !== status)
    return {
      what: "the run's status",
      expected: wantStatus,
      got: `${status}${outcome.error ? ` (${outcome.error})` : ''}`,
    };
  if (expect.exit !== undefined && expect.exit !== STATUS_EXIT[status])
    return {
      what: 'the exit code',
      expected: String(expect.exit),
      got: String(STATUS_EXIT[status]),
    };
  for (const [agent, check] of Object.entries(expect.results ?? {})) {
    const got = outcome.results[agent];
    if (got === undefined || !textFits(check, got))
      return {
        what: `the result of agent ${agent}`,
        expected: described(check),
        got: got === undefined ? '(no result)' : shown(got),
      };
  }
  const file = fileDivergence(expect.files ?? {}, record.work);
  if (file) return file;
  const branch = branchDivergence(expect.branches ?? {}, record.work);
  if (branch) return branch;
  const cost = outcome.totalCostUsd;
  if (expect.cost?.at_most !== undefined && cost > expect.cost.at_most + 1e-12)
    return {
      what: "the run's cost",
      expected: `at most $${expect.cost.at_most}`,
      got: usd(cost),
    };
  if (expect.cost?.exactly !== undefined && Math.abs(cost - expect.cost.exactly) > 1e-9)
    return {
      what: "the run's cost",
      expected: `$${expect.cost.exactly}`,
      got: usd(cost),
    };
  return undefined;
}
