import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { AgentRecord, Decision } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import type { Scope } from '../scope/scope.js';

async function resolveCd(agent: AgentRecord, cd: string, where: string): Promise<string> {
  const dir = resolvePath(agent.cwd, cd);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RaymondError('ERR_CD', `cd="${cd}" is not a directory (resolved to ${dir})`, { file: where });
  }
  return dir;
}

/** Resolves every state name and directory in a decision before it is applied. */
export async function resolveDecision(decision: Decision, agent: AgentRecord, scope: Scope, where: string): Promise<Decision> {
  const r = (name: string) => scope.resolve(name, where);
  switch (decision.kind) {
    case 'goto':
      return { ...decision, target: r(decision.target) };
    case 'reset':
      return { ...decision, target: r(decision.target), cd: decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where) };
    case 'call':
    case 'function':
      return { ...decision, target: r(decision.target), returnTo: r(decision.returnTo) };
    case 'fork': {
      const next = r(decision.next);
      const workers = [];
      for (const w of decision.workers) {
        workers.push({ ...w, target: r(w.target), cd: w.cd === undefined ? undefined : await resolveCd(agent, w.cd, where) });
      }
      return { ...decision, next, workers };
    }
    case 'result':
      return decision;
  }
}

/** Errors a reminder can fix: the reply, not the workflow, was wrong. */
export const REMINDABLE = new Set(['ERR_TAG_MISSING', 'ERR_TAG_MULTIPLE', 'ERR_TAG_PARSE', 'ERR_POLICY', 'ERR_TARGET_INVALID', 'ERR_STATE_NOT_FOUND', 'ERR_STATE_AMBIGUOUS', 'ERR_STATE_UNSUPPORTED', 'ERR_CD']);
