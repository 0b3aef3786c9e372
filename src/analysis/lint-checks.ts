import { backendOf } from '../agents/registry/registry.js';
import { ATTRIBUTE_ENV_PREFIX, exportedAsIs } from '../executors/attribute-env.js';
import { RESERVED_FORK_ATTRIBUTES } from '../language/decide.js';
import { tagsWith } from '../language/tag-scanner.js';
import { taskOf, worktreeOf } from '../language/placement-attributes.js';
import { RaymondError } from '../errors.js';
import { parseDuration } from '../language/duration.js';
import { formatAllowed, formatTag, implicitTag, matches } from '../language/policy.js';
import { FORCE_IMPLICIT_PROBLEM } from '../language/frontmatter.js';
import { misspeltTagMessage } from '../language/misspelt-tags.js';
import { isMarkdown } from '../scope/extensions.js';
import type { Problem } from './lint-checks-table.js';
import { grantChecks } from './lint-grant.js';
import { refKey, type StateRef, type Transition, type WorkflowNode } from './workflow-node.js';

/** The checks that need only one state: its frontmatter, its tags and where they point. */
export function stateChecks(node: WorkflowNode): Problem[] {
  const out: Problem[] = [];
  const report = (check: Problem['check'], message: string) =>
    out.push({ check, file: node.file, message });
  if (node.frontmatterError !== undefined)
    report(
      node.frontmatterError.startsWith(FORCE_IMPLICIT_PROBLEM)
        ? 'force-implicit-invalid'
        : 'bad-frontmatter',
      node.frontmatterError,
    );
  if (node.linkOutside !== undefined)
    report(
      'link-outside-folder',
      `${node.file} is a symbolic link to ${node.linkOutside}, outside the workflow folder: a run on this machine reads it, but a run with --queue refuses it (workers get only the folder's own files); copy the file in`,
    );
  if (node.kind === 'script')
    report(
      'script-state-no-static-analysis',
      `${node.file} is a script: its transitions are what it prints when it runs, which lint can read only where they are written out`,
    );
  const implicit = node.policy.allowed ? implicitTag(node.policy.allowed) : undefined;
  if (implicit && !node.policy.forceImplicit)
    report(
      'implicit-transition',
      `a reply without a tag takes ${formatTag(implicit).replace('...', implicit.body)}: the only allowed transition`,
    );
  for (const w of node.warnings) report('unknown-frontmatter-key', w);
  for (const w of node.fieldWarnings) report('unknown-field', w);
  const { model, fallbackModels = [], effort } = node.policy;
  // Each backend's own: `openai/gpt-5` and `xhigh` are right in a pi workflow and wrong in a Claude Code one.
  const backend = backendOf(node.backend);
  const modelProblem = model === undefined ? undefined : backend.modelProblem(model);
  const effortProblem = effort === undefined ? undefined : backend.effortProblem(effort);
  if (modelProblem !== undefined) report('invalid-model', modelProblem);
  // A fallback model is asked of the same backend: one of another backend's would fail the turn it rescues.
  for (const m of fallbackModels) {
    const problem = backend.modelProblem(m);
    if (problem !== undefined) report('invalid-model', `fallback_models: ${problem}`);
  }
  if (effortProblem !== undefined) report('invalid-effort', effortProblem);
  for (const e of node.tagErrors) report('malformed-tag', e);
  for (const m of node.misspelt) report('unknown-tag', misspeltTagMessage(m));
  for (const t of node.transitions) {
    targetProblems(t, report);
    if (CALLS.has(t.tag) && !t.returnTo && !hasReturningTwin(t, node.transitions)) {
      report(
        'call-without-return',
        `<${t.tag}>${t.target.written}</${t.tag}> has no return="STATE"; Raymond refuses it: name the state where the caller continues`,
      );
    }
  }
  const forks = node.transitions.filter((t) => FORKS.has(t.tag));
  // A misspelt `<join>` or `<goto>` is reported as such, not as the continuation it left out.
  if (
    forks.length > 0 &&
    node.misspelt.length === 0 &&
    !forks.some((f) => f.next) &&
    !node.transitions.some((t) => t.tag === 'goto' || t.tag === 'join')
  ) {
    const first = forks[0]!;
    report(
      'fork-without-next',
      `<${first.tag}>${first.target.written}</${first.tag}> has no next="STATE" and the state has no <goto> or <join>: the parent has nowhere to continue`,
    );
  }
  for (const t of node.textTags) {
    if (t.tag === 'join' && Object.keys(t.attributes).length > 0)
      report(
        'malformed-tag',
        `<join> takes no attributes (it has ${Object.keys(t.attributes).join(', ')}): its next state's input is the workers' results`,
      );
  }
  askChecks(node, report);
  for (const t of node.textTags) {
    if (t.tag === 'call-workflow' && t.attributes.cd !== undefined)
      report(
        'call-workflow-cd',
        `<call-workflow> cannot have cd="${t.attributes.cd}": it branches the caller's session, which belongs to the caller's directory; use <function-workflow> to run a workflow elsewhere`,
      );
  }
  forkNextChecks(node, report);
  policyChecks(node, report);
  attributeEnvChecks(node, report);
  worktreeChecks(node, report);
  taskChecks(node, report);
  grantChecks(node, report);
  return out;
}

/** `<ask>` as a run reads it: a `next`, no `cd`, a timeout it can read; and policy entries for it with a `next`. */
function askChecks(node: WorkflowNode, report: Report): void {
  for (const entry of node.policy.allowed ?? []) {
    if (entry.tag === 'ask' && entry.attributes.next === undefined)
      report(
        'missing-ask-next',
        `allowed_transitions has an ask entry without next: where the answer goes (write { tag: ask, next: STATE })`,
      );
  }
  for (const t of node.textTags) {
    if (t.tag !== 'ask') continue;
    if (t.attributes.cd !== undefined)
      report(
        'unsupported-cd-attribute',
        `<ask> cannot have cd="${t.attributes.cd}": the agent only waits, in its own directory`,
      );
    if (t.attributes.next === undefined && !t.dynamic.includes('next'))
      report('missing-ask-next', '<ask> has no next="STATE": where the answer goes');
    if (t.attributes.timeout !== undefined && !t.dynamic.includes('timeout')) {
      try {
        parseDuration(t.attributes.timeout, '<ask> timeout', node.file);
      } catch (err) {
        if (!(err instanceof RaymondError)) throw err;
        report('malformed-tag', err.message);
      }
    }
  }
}

/** Tags that push a return frame, and tags that fork workers. */
const CALLS = new Set<string>(tagsWith('calls'));
const FORKS = new Set<string>(tagsWith('forks'));
/** Tags that take `task`, `worktree`, `base` and `sparse`. */
const FOLDER_TAGS = new Set<string>(tagsWith('places'));

/** `task="..."` on `<reset>` and `<fork>` (and their cross-workflow forms), unless built at run time. */
function taskChecks(node: WorkflowNode, report: Report): void {
  for (const t of node.textTags) {
    if (!FOLDER_TAGS.has(t.tag) || t.dynamic.includes('task')) continue;
    try {
      taskOf(
        t.attributes,
        t.tag as 'fork' | 'reset' | 'fork-workflow' | 'reset-workflow',
        node.file,
      );
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      report('bad-task-attribute', err.message);
    }
  }
}

/** Forks of one state whose `next` differ: a run refuses an output that has them together. */
function forkNextChecks(node: WorkflowNode, report: Report): void {
  const nexts = new Set(
    node.textTags
      .filter((t) => FORKS.has(t.tag) && t.attributes.next && !t.dynamic.includes('next'))
      .map((t) => t.attributes.next!),
  );
  if (nexts.size > 1)
    report(
      'fork-next-mismatch',
      `the <fork>s send the parent to different next states (${[...nexts].join(', ')}); forks printed together must agree, or the run refuses the output`,
    );
}

/**
 * `worktree`, `base`, `sparse` and `cd` as a run would take them. A value
 * built at run time (`sparse="pkg/$p"`) is only checked for being there.
 */
function worktreeChecks(node: WorkflowNode, report: Report): void {
  for (const t of node.textTags) {
    if (!FOLDER_TAGS.has(t.tag)) continue;
    const attributes = { ...t.attributes };
    for (const name of t.dynamic) if (name in attributes) attributes[name] = 'dynamic';
    try {
      worktreeOf(attributes, t.tag, node.file);
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      report('bad-worktree-attributes', err.message);
    }
  }
}

type Report = (check: Problem['check'], message: string) => void;

function targetProblems(t: Transition, report: Report): void {
  refProblem(t.target, `<${t.tag}> target`, 'unknown-target', report);
  if (t.workflow?.problem !== undefined) {
    const problem = t.workflow.problem;
    report(
      'unknown-workflow',
      problem.startsWith('workflow "')
        ? `<${t.tag}> ${problem}`
        : `<${t.tag}> workflow "${t.workflow.written}": ${problem}`,
    );
  }
  if (t.next) refProblem(t.next, `<${t.tag}> next`, 'unknown-target', report);
  if (t.timeoutNext) refProblem(t.timeoutNext, '<ask> timeout_next', 'unknown-target', report);
  if (t.returnTo) refProblem(t.returnTo, `<${t.tag}> return`, 'missing-return-state', report);
}

function refProblem(
  ref: StateRef,
  what: string,
  missing: 'unknown-target' | 'missing-return-state',
  report: Report,
): void {
  switch (ref.problem) {
    case undefined:
      return;
    case 'ERR_STATE_AMBIGUOUS':
      report(
        'ambiguous-target',
        `${what} "${ref.written}" is ambiguous: ${ref.files.join(' and ')} both exist; write the extension`,
      );
      return;
    case 'ERR_STATE_UNSUPPORTED':
      report(missing, `${what} "${ref.written}" cannot run on this platform`);
      return;
    default:
      report(missing, `${what} "${ref.written}" is not a state of this workflow`);
  }
}

/** A policy entry without `return` is fine when the prompt's tag for the same callee has one. */
function hasReturningTwin(t: Transition, all: Transition[]): boolean {
  return all.some((o) => o.tag === t.tag && o.returnTo && refKey(o.target) === refKey(t.target));
}

/** Prompt and `allowed_transitions` must agree: the model is asked only for what the policy lets through. */
function policyChecks(node: WorkflowNode, report: Report): void {
  const allowed = node.policy.allowed;
  if (!allowed) return;
  for (const tag of node.textTags) {
    if (tag.dynamic.length > 0 || allowed.some((e) => matches(tag, e))) continue;
    report(
      'tag-not-allowed',
      `the prompt asks for ${formatTag(tag)}, which allowed_transitions does not allow: the reply would be refused`,
    );
  }
  // With one non-result entry the prompt need not mention it: a reply without a tag takes it.
  if (implicitTag(allowed)) return;
  for (const entry of allowed) {
    const mentioned = node.textTags.some(
      (tag) => matches(tag, entry) || (tag.tag === entry.tag && tag.dynamic.length > 0),
    );
    if (!mentioned)
      report(
        'unused-allowed-transition',
        `allowed_transitions lists ${formatAllowed(entry)} but the prompt never asks for it`,
      );
  }
}

/**
 * A `<fork>` to a script that sets an attribute whose name does not reach
 * the environment as written (`ITEM`, `a.b`): a `ray` workflow reading `$ITEM`
 * would silently read nothing.
 */
function attributeEnvChecks(node: WorkflowNode, report: Report): void {
  const forks = [
    ...node.textTags
      .filter((t) => t.tag === 'fork')
      .map((t) => ({ target: t.body, names: Object.keys(t.attributes) })),
    ...(node.policy.allowed ?? [])
      .filter((e) => e.tag === 'fork')
      .map((e) => ({
        target: e.target!,
        names: [...Object.keys(e.attributes), ...(e.allowedAttributes ?? [])],
      })),
  ];
  const seen = new Set<string>();
  for (const fork of forks) {
    const script = node.transitions
      .find((t) => t.tag === 'fork' && t.target.written === fork.target)
      ?.target.files.find((f) => !isMarkdown(f));
    if (script === undefined) continue;
    for (const name of fork.names) {
      const key = `${fork.target}\u0000${name}`;
      if (RESERVED_FORK_ATTRIBUTES.has(name) || exportedAsIs(name) || seen.has(key)) continue;
      seen.add(key);
      report(
        'attribute-not-in-env',
        `<fork> sets ${name}="..." for ${fork.target}, a script, which gets it only as $${ATTRIBUTE_ENV_PREFIX}${name}: an attribute reaches scripts under its own name only when that is lower case and not read by tools`,
      );
    }
  }
}
