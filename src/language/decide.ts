import { RaymondError } from '../errors.js';
import { parseDuration } from './duration.js';
import type { ParsedTag } from './parse-output.js';
import type { Decision, ForkSpawn } from '../../machines/types.js';
import { taskOf, worktreeOf } from './placement-attributes.js';
import { exhaustive } from '../../machines/exhaustive.js';

/** Attributes the runtime consumes on a fork; the rest become the worker's variables. */
export const RESERVED_FORK_ATTRIBUTES = new Set([
  'next',
  'cd',
  'input',
  'worktree',
  'base',
  'sparse',
  'task',
  'budget',
]);

/** A fork's `budget="0.50"` (or `$0.50`): a positive amount in USD. */
function budgetOf(attributes: Record<string, string>, source: string): number | undefined {
  const raw = attributes.budget;
  if (raw === undefined) return undefined;
  const usd = /^\$?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim().replace('$', '')) : NaN;
  if (!(usd > 0))
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `budget="${raw}" is not an amount in USD above 0 (budget="0.50")`,
      { file: source },
    );
  return usd;
}

function describe(tags: ParsedTag[]): string {
  return tags.map((t) => `<${t.tag}>`).join(', ');
}

function optional(value: string | undefined): string | undefined {
  return value === undefined ? undefined : value;
}

/**
 * Turns the tags of one output into the single decision the agent acts on.
 * Exactly one transition tag is allowed, except that several `<fork>`s (with
 * at most one `<goto>` for the parent) form one decision when their
 * continuations agree.
 */
export function decide(tags: ParsedTag[], source: string): Decision {
  if (tags.length === 0) {
    throw new RaymondError(
      'ERR_TAG_MISSING',
      'output has no transition tag (expected one of <goto>, <reset>, <call>, <function>, <fork>, <join>, <result>, or a cross-workflow <call-workflow>, <function-workflow>, <fork-workflow>, <reset-workflow>)',
      { file: source },
    );
  }
  const forks = tags.filter((t) => t.tag === 'fork' || t.tag === 'fork-workflow');
  if (tags.length > 1) {
    const continuations = tags.filter((t) => t.tag === 'goto' || t.tag === 'join');
    const others = tags.length - forks.length - continuations.length;
    if (forks.length === 0 || others > 0 || continuations.length > 1) {
      throw new RaymondError(
        'ERR_TAG_MULTIPLE',
        `output has ${tags.length} transition tags (${describe(tags)}); exactly one is allowed, or several <fork>/<fork-workflow> with at most one <goto> or <join>`,
        { file: source },
      );
    }
    return forkDecision(forks, continuations[0], source);
  }
  const tag = tags[0]!;
  const a = tag.attributes;
  switch (tag.tag) {
    case 'goto':
      return { kind: 'goto', target: tag.body, input: optional(a.input) };
    case 'reset':
      return {
        kind: 'reset',
        target: tag.body,
        input: optional(a.input),
        cd: optional(a.cd),
        worktree: worktreeOf(a, 'reset', source),
        ...(taskOf(a, 'reset', source) ? { newTask: true } : {}),
      };
    case 'call':
    case 'function': {
      if (a.return === undefined) {
        throw new RaymondError(
          'ERR_TAG_PARSE',
          `<${tag.tag}>${tag.body}</${tag.tag}> needs a return="STATE" attribute`,
          { file: source },
        );
      }
      return { kind: tag.tag, target: tag.body, returnTo: a.return, input: optional(a.input) };
    }
    case 'fork':
    case 'fork-workflow':
      return forkDecision([tag], undefined, source);
    case 'join':
      return forkDecision([], tag, source);
    case 'result':
      return { kind: 'result', payload: tag.body };
    case 'call-workflow':
    case 'function-workflow':
      return callWorkflow(tag, source);
    case 'ask':
      return askDecision(tag, source);
    case 'reset-workflow':
      return {
        ...workflowOf(tag),
        kind: 'reset',
        input: optional(a.input),
        cd: optional(a.cd),
        worktree: worktreeOf(a, tag.tag, source),
        ...(taskOf(a, tag.tag, source) ? { newTask: true } : {}),
      };
    default:
      return exhaustive(tag.tag);
  }
}

/** File attributes of an `<ask>` (`ask-file-attachments-design.md`): kept with the ask for whoever answers it. */
export const ASK_FILE_ATTRIBUTES = new Set([
  'upload_slots',
  'upload_bucket',
  'upload_max_count',
  'upload_max_size',
  'upload_max_total_size',
  'upload_mime',
  'display_files',
]);

function askDecision(tag: ParsedTag, source: string): Decision {
  const a = tag.attributes;
  const fail = (message: string): never => {
    throw new RaymondError('ERR_TAG_PARSE', message, { file: source });
  };
  if (a.next === undefined)
    fail('<ask> needs a next="STATE" attribute: the state the answer goes to');
  if (a.cd !== undefined)
    fail(`<ask> cannot have cd="${a.cd}": the agent only waits, in its own directory`);
  if (a.timeout_next !== undefined && a.timeout === undefined)
    fail(`<ask> has timeout_next="${a.timeout_next}" but no timeout="..." to wait for`);
  const prompt = tag.body.trim();
  if (prompt === '') fail('<ask> asks nothing: write the question between <ask ...> and </ask>');
  const timeoutMs =
    a.timeout === undefined ? undefined : parseDuration(a.timeout, '<ask> timeout', source);
  const files = Object.fromEntries(Object.entries(a).filter(([k]) => ASK_FILE_ATTRIBUTES.has(k)));
  return {
    kind: 'ask',
    next: a.next!,
    prompt,
    timeoutMs,
    timeoutNext: optional(a.timeout_next),
    ...(Object.keys(files).length > 0 ? { files } : {}),
  };
}

/** A cross-workflow tag's callee, unresolved: the decision's target is the specifier until the scope is opened. */
function workflowOf(tag: ParsedTag): { target: string; workflow: { spec: string } } {
  return { target: tag.body, workflow: { spec: tag.body } };
}

function callWorkflow(tag: ParsedTag, source: string): Decision {
  const a = tag.attributes;
  if (a.return === undefined) {
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `<${tag.tag}>${tag.body}</${tag.tag}> needs a return="STATE" attribute (the caller's state to continue in)`,
      { file: source },
    );
  }
  if (tag.tag === 'call-workflow' && a.cd !== undefined) {
    // The callee's first turn branches the caller's session, which Claude Code keeps per directory.
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `<call-workflow> cannot have cd="${a.cd}": it branches the caller's session, which belongs to the caller's directory; use <function-workflow> (a fresh session) to run a workflow elsewhere`,
      { file: source },
    );
  }
  const kind = tag.tag === 'call-workflow' ? 'call' : 'function';
  return {
    ...workflowOf(tag),
    kind,
    returnTo: a.return,
    input: optional(a.input),
    cd: optional(a.cd),
  };
}

/**
 * The forks of one output with the parent's continuation: a `<goto>`, a
 * `<join>` (the parent waits for its workers), or the forks' `next`.
 */
function forkDecision(forks: ParsedTag[], goto: ParsedTag | undefined, source: string): Decision {
  const join = goto?.tag === 'join';
  if (join) {
    const attrs = Object.keys(goto.attributes);
    // The join's input is its workers' results: nothing else may be given.
    if (attrs.length > 0)
      throw new RaymondError(
        'ERR_TAG_PARSE',
        `<join> takes no attributes (it has ${attrs.map((k) => `${k}="..."`).join(' ')}): its next state's input is the workers' results`,
        { file: source },
      );
  }
  const nexts = new Set<string>();
  for (const f of forks) if (f.attributes.next !== undefined) nexts.add(f.attributes.next);
  if (goto) nexts.add(goto.body);
  if (nexts.size === 0) {
    const first = forks[0]!;
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `<${first.tag}>${first.body}</${first.tag}> needs a next="STATE" attribute (where the parent continues), or a <goto> beside it`,
      { file: source },
    );
  }
  if (nexts.size > 1) {
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `the forks' next states and the <${goto?.tag ?? 'goto'}> disagree (${[...nexts].join(', ')}); the parent can continue in only one state`,
      { file: source },
    );
  }
  const workers: ForkSpawn[] = forks.map((f) => {
    // fromEntries defines keys, so a `__proto__` attribute stays an ordinary variable of the worker.
    const attributes = Object.fromEntries(
      Object.entries(f.attributes).filter(([k]) => !RESERVED_FORK_ATTRIBUTES.has(k)),
    );
    const tag = f.tag as 'fork' | 'fork-workflow';
    const inherit = taskOf(f.attributes, tag, source) === 'inherit';
    const worker: ForkSpawn = {
      target: f.body,
      attributes,
      cd: optional(f.attributes.cd),
      input: optional(f.attributes.input),
      worktree: worktreeOf(f.attributes, tag, source),
      ...(inherit ? { inheritTask: true } : {}),
    };
    const budget = budgetOf(f.attributes, source);
    if (budget !== undefined) worker.budget = budget;
    if (tag === 'fork-workflow') worker.workflow = { spec: f.body };
    return worker;
  });
  if (join) return { kind: 'fork', next: [...nexts][0]!, workers, join: true };
  return {
    kind: 'fork',
    next: [...nexts][0]!,
    nextInput: optional(goto?.attributes.input),
    workers,
  };
}
