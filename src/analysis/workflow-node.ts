import { RaymondError, type ErrorCode } from '../errors.js';
import { parseStateSource, type Policy } from '../language/frontmatter.js';
import { isWorkflowTag, type TagName } from '../language/parse-output.js';
import { misspeltTags, type MisspeltTag } from '../language/misspelt-tags.js';
import { implicitTag } from '../language/policy.js';
import { overGrant, type Grant } from '../language/grant.js';
import type { BackendSpec } from '../executors/executor.js';
import { grantFileProblems } from '../scope/grant-files.js';
import { extensionOf, isMarkdown } from '../scope/extensions.js';
import { isRemoteSpecifier } from '../scope/remote-zip.js';
import type { Scope } from '../scope/scope.js';
import {
  hasPlaceholder,
  scanPrompt,
  scanScript,
  type FoundTag,
  type TextScan,
} from './extract-tags.js';

// One state file read for analysis (its transitions, resolved in its scope) — kept apart from
// workflow-graph.ts, which walks the whole workflow and opens the scopes these nodes come from.
/** A tag that moves the agent to another state (every tag but `<result>`). */
export type EdgeTag = Exclude<TagName, 'result'>;

/** A state named by a tag (its target, `return` or `next`), resolved in the scope when possible. */
export interface StateRef {
  written: string;
  /** State files it resolves to: one; both candidates when ambiguous; none when missing or dynamic. */
  files: string[];
  /** Built at run time (`{{x}}`, `$x`), so only the run knows where it leads. */
  dynamic: boolean;
  /** Why it does not resolve to exactly one state file. */
  problem?: ErrorCode;
}

/** The workflow a cross-workflow tag names, as lint found it. */
export interface WorkflowRef {
  written: string;
  /** Built at run time, or a URL (not downloaded by lint): not checked. */
  dynamic: boolean;
  /** Why it cannot be run: no such workflow, no entry... */
  problem?: string;
}

/** One way out of a state, from its `allowed_transitions`, its prompt or its script. */
export interface Transition {
  tag: EdgeTag;
  /** The state it leads to; for a cross-workflow tag, a reference to no state of this workflow (see `workflow`). */
  target: StateRef;
  /** The other workflow a cross-workflow tag leads into. */
  workflow?: WorkflowRef;
  /** `return="..."` of a `<call>` or `<function>`. */
  returnTo?: StateRef;
  /** `next="..."` of a `<fork>`. */
  next?: StateRef;
  /** `timeout_next="..."` of an `<ask>` (whose `target` is its `next`). */
  timeoutNext?: StateRef;
  /** Shown in the prompt or printed by the script, not only listed in `allowed_transitions`. */
  inText: boolean;
  /** The single allowed entry of a markdown state, taken even when the reply has no tag. */
  implicit: boolean;
}

/** A state file and what can be read from it without running it. */
export interface WorkflowNode {
  file: string;
  kind: 'markdown' | 'script';
  entry: boolean;
  text: string;
  policy: Policy;
  transitions: Transition[];
  /** Tags the prompt or script text shows, `<result>` included. */
  textTags: FoundTag[];
  /** Whether the state can end with `<result>`. */
  result: boolean;
  frontmatterError?: string;
  /** Tags in the text that do not parse. */
  tagErrors: string[];
  /** Unknown tags in the text that are typos of known ones (`<jion>`). */
  misspelt: MisspeltTag[];
  /** Frontmatter warnings (unknown keys). */
  warnings: string[];
  /** Warnings about the state's definition in the scope (a YAML state's unknown keys). */
  fieldWarnings: string[];
  /** The agent CLI of the state's workflow (`backend:`), whose models and efforts it may name. */
  backend?: BackendSpec;
  /** Where the state file points, when it is a symbolic link that leaves its workflow folder. */
  linkOutside?: string;
  /** Markdown states: the workflow's grant keys under the state's own; absent when neither gives any. */
  grant?: Grant;
  /** What reading the grant's files found wrong (a missing or malformed MCP server file). */
  grantFileProblems?: string[];
}

/** The state name a file answers to: its file name without the state extension. */
export function stem(file: string): string {
  return file.slice(0, file.length - (extensionOf(file)?.length ?? 0));
}

/** Reads one state file: its policy, grant, the tags its text shows and the transitions they make. */
export async function readNode(scope: Scope, file: string, entry: boolean): Promise<WorkflowNode> {
  const text = await scope.readText(file);
  const kind = isMarkdown(file) ? 'markdown' : 'script';
  const node: WorkflowNode = {
    file,
    kind,
    entry,
    text,
    policy: {},
    transitions: [],
    textTags: [],
    result: false,
    tagErrors: [],
    misspelt: [],
    warnings: [],
    fieldWarnings: [],
    backend: scope.backend,
  };
  let scanned: TextScan;
  if (node.kind === 'markdown') {
    try {
      const source = parseStateSource(text, file);
      node.policy = source.policy;
      node.warnings = source.warnings;
      if (scope.grant || source.policy.grant) {
        node.grant = overGrant(scope.grant ?? {}, source.policy.grant ?? {});
        node.grantFileProblems = await grantFileProblems(scope, node.grant, file);
      }
      scanned = scanPrompt(source.body);
      node.misspelt = misspeltTags(source.body);
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      node.frontmatterError = err.message;
      return node;
    }
  } else {
    scanned = scanScript(text);
    node.misspelt = misspeltTags(text);
  }
  node.textTags = scanned.tags;
  node.tagErrors = scanned.errors;
  const allowed = node.policy.allowed ?? [];
  const implicit = implicitTag(allowed) !== undefined;
  const merged = new Map<string, Transition>();
  const add = (tag: FoundTag, fromPolicy: boolean) => {
    if (tag.tag === 'result') return;
    const t = transition(scope, { ...tag, tag: tag.tag }, fromPolicy && implicit);
    const key = [
      t.tag,
      refKey(t.target),
      refKey(t.returnTo),
      refKey(t.next),
      refKey(t.timeoutNext),
    ].join('\u0000');
    const seen = merged.get(key);
    if (seen) seen.inText ||= !fromPolicy;
    else merged.set(key, { ...t, inText: !fromPolicy });
  };
  for (const entry of allowed) {
    const values = Object.entries({ ...entry.attributes, body: entry.target ?? '' });
    const dynamic = values.filter(([, v]) => hasPlaceholder(v)).map(([k]) => k);
    // A cross-workflow entry without a target lets the reply name any workflow.
    if (entry.target === undefined && isWorkflowTag(entry.tag)) dynamic.push('body');
    add({ tag: entry.tag, body: entry.target ?? '', attributes: entry.attributes, dynamic }, true);
  }
  for (const tag of scanned.tags) add(tag, false);
  node.transitions = [...merged.values()];
  node.result =
    allowed.some((e) => e.tag === 'result') || scanned.tags.some((t) => t.tag === 'result');
  return node;
}

/** Identity of a reference: the files it resolves to, else its text as written. */
export function refKey(ref: StateRef | undefined): string {
  if (!ref) return '';
  return ref.files.length > 0 ? ref.files.join('|') : ref.written;
}

function transition(
  scope: Scope,
  tag: FoundTag & { tag: EdgeTag },
  implicit: boolean,
): Omit<Transition, 'inText'> {
  const ref = (field: string, written: string) =>
    resolveRef(scope, written, tag.dynamic.includes(field));
  const workflow = isWorkflowTag(tag.tag);
  if (tag.tag === 'ask') {
    // An ask's body is its question: the answer leads to `next` (a missing next is lint's missing-ask-next).
    const next = tag.attributes.next;
    const out: Omit<Transition, 'inText'> = {
      tag: 'ask',
      target: next === undefined ? { written: '', files: [], dynamic: true } : ref('next', next),
      implicit,
    };
    if (tag.attributes.timeout_next !== undefined)
      out.timeoutNext = ref('timeout_next', tag.attributes.timeout_next);
    return out;
  }
  // A workflow target leads out of this workflow: no state here, and no unknown one either.
  const target = workflow
    ? { written: tag.body, files: [], dynamic: false }
    : ref('body', tag.body);
  const out: Omit<Transition, 'inText'> = { tag: tag.tag, target, implicit };
  if (workflow)
    out.workflow = {
      written: tag.body,
      dynamic: tag.dynamic.includes('body') || isRemoteSpecifier(tag.body),
    };
  const calls =
    tag.tag === 'call' ||
    tag.tag === 'function' ||
    tag.tag === 'call-workflow' ||
    tag.tag === 'function-workflow';
  if (calls && tag.attributes.return !== undefined)
    out.returnTo = ref('return', tag.attributes.return);
  if ((tag.tag === 'fork' || tag.tag === 'fork-workflow') && tag.attributes.next !== undefined)
    out.next = ref('next', tag.attributes.next);
  return out;
}

function resolveRef(scope: Scope, written: string, dynamic: boolean): StateRef {
  if (dynamic) return { written, files: [], dynamic };
  try {
    return { written, files: [scope.resolve(written, '')], dynamic };
  } catch (err) {
    if (!(err instanceof RaymondError)) throw err;
    const files =
      err.code === 'ERR_STATE_AMBIGUOUS'
        ? scope.stateFiles().filter((f) => stem(f) === written)
        : [];
    return { written, files, dynamic, problem: err.code };
  }
}
