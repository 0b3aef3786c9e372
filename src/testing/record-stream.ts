import { isAbsolute, relative } from 'node:path';
import type { RecordedTurn } from '../agents/agent-backend.js';
import { allBackends } from '../agents/registry/registry.js';
import type { ToolCall } from './test-spec-schema.js';

/** A tool call as the agent CLI gave it. */
interface RawCall {
  name: string;
  input: Record<string, unknown>;
}

type Line = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Line => (v && typeof v === 'object' ? (v as Line) : {});

/** The JSON lines of a stream; lines that are not JSON objects are skipped. */
function jsonLines(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const v: unknown = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Line);
    } catch {
      // A line cut by a killed process: it holds no whole turn.
    }
  }
  return out;
}

/**
 * The turns of one markdown step's raw stream (`.raymond/debug/<id>/<agent>_<state>_<NNN>.jsonl`):
 * Claude Code's stream-json (a turn ends at each `result` line: a reminder is
 * a second turn) or pi's `--mode json` (a turn is one pi process, from its
 * `session` line), or a backend's own (Codex's). A turn cut before its end is left out. Paths inside `cwd`
 * are written relative to it.
 */
export function streamTurns(text: string, cwd: string): RecordedTurn[] {
  for (const backend of allBackends()) {
    const turns = backend.scripted.recordTurns?.(text, cwd);
    if (turns) return turns;
  }
  const lines = jsonLines(text);
  const pi = lines.some((l) => l.type === 'session' || l.type === 'agent_end');
  return pi ? piTurns(lines, cwd) : claudeTurns(lines, cwd);
}

function claudeTurns(lines: Line[], cwd: string): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  let calls: RawCall[] = [];
  const seen = new Set<string>();
  for (const l of lines) {
    // A sub-agent's messages (`parent_tool_use_id` set) are its own, not this turn's replies.
    if (l.type === 'assistant' && (l.parent_tool_use_id ?? null) === null) {
      const content = obj(l.message).content;
      for (const block of Array.isArray(content) ? (content as Line[]) : []) {
        const id = str(block.id);
        if (block.type !== 'tool_use' || !str(block.name) || (id && seen.has(id))) continue;
        if (id) seen.add(id);
        calls.push({ name: str(block.name)!, input: obj(block.input) });
      }
    } else if (l.type === 'result') {
      const usage = obj(l.usage);
      // A turn that failed (an API error: Raymond tried again) is not one a replay gives.
      if (l.is_error !== true)
        turns.push({
          text: str(l.result) ?? '',
          tools: claudeCalls(calls, cwd),
          tokens: {
            input:
              num(usage.input_tokens) +
              num(usage.cache_creation_input_tokens) +
              num(usage.cache_read_input_tokens),
            output: num(usage.output_tokens),
          },
        });
      calls = [];
    }
  }
  return turns;
}

/** Claude Code's tools as test-file calls; a `Read` just before a `Write`/`Edit` of the same file is left out (replaying those reads it). */
function claudeCalls(calls: RawCall[], cwd: string): ToolCall[] {
  const out: ToolCall[] = [];
  calls.forEach((c, i) => {
    const next = calls[i + 1];
    const file = str(c.input.file_path);
    if (
      c.name === 'Read' &&
      file !== undefined &&
      (next?.name === 'Write' || next?.name === 'Edit') &&
      next.input.file_path === file
    )
      return;
    out.push(claudeCall(c, cwd));
  });
  return out;
}

function claudeCall(c: RawCall, cwd: string): ToolCall {
  const i = c.input;
  const command = str(i.command);
  const path = str(i.file_path);
  if (
    c.name === 'Bash' &&
    command &&
    Object.keys(i).every((k) => k === 'command' || k === 'description')
  )
    return { bash: command };
  if (c.name === 'Write' && path && typeof i.content === 'string')
    return { write: { path: within(path, cwd), content: i.content } };
  if (
    c.name === 'Edit' &&
    path &&
    typeof i.old_string === 'string' &&
    typeof i.new_string === 'string' &&
    !i.replace_all
  )
    return { edit: { path: within(path, cwd), old: i.old_string, new: i.new_string } };
  return { tool: c.name, input: i };
}

function piTurns(lines: Line[], cwd: string): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  let turn: (RecordedTurn & { ended: boolean }) | undefined;
  const close = () => {
    if (turn?.ended) turns.push({ text: turn.text, tools: turn.tools, tokens: turn.tokens });
  };
  for (const l of lines) {
    if (l.type === 'session') {
      close();
      turn = { text: '', tools: [], tokens: { input: 0, output: 0 }, ended: false };
    }
    if (!turn) continue;
    if (l.type === 'tool_execution_start' && str(l.toolName))
      turn.tools.push(piCall({ name: str(l.toolName)!, input: obj(l.args) }, cwd));
    else if (l.type === 'message_end' && obj(l.message).role === 'assistant') {
      const u = obj(obj(l.message).usage);
      turn.tokens.input += num(u.input) + num(u.cacheRead) + num(u.cacheWrite);
      turn.tokens.output += num(u.output);
    } else if (l.type === 'agent_end') {
      // pi retries on its own, with one agent_end per attempt: the last one counts.
      const messages = Array.isArray(l.messages) ? (l.messages as Line[]) : [];
      const last = messages.filter((m) => m.role === 'assistant').at(-1);
      const content = Array.isArray(last?.content) ? (last.content as Line[]) : [];
      turn.text = content
        .filter((c) => c.type === 'text')
        .map((c) => str(c.text) ?? '')
        .join('');
      turn.ended = true;
    }
  }
  close();
  return turns;
}

function piCall(c: RawCall, cwd: string): ToolCall {
  const i = c.input;
  const path = str(i.path);
  const edits = Array.isArray(i.edits) ? (i.edits as Line[]) : undefined;
  const one = edits?.length === 1 ? edits[0]! : edits ? undefined : i;
  if (c.name === 'bash' && str(i.command) && Object.keys(i).length === 1)
    return { bash: str(i.command)! };
  if (c.name === 'write' && path && typeof i.content === 'string')
    return { write: { path: within(path, cwd), content: i.content } };
  if (
    c.name === 'edit' &&
    path &&
    one &&
    typeof one.oldText === 'string' &&
    typeof one.newText === 'string'
  )
    return { edit: { path: within(path, cwd), old: one.oldText, new: one.newText } };
  return { tool: c.name, input: i };
}

/** `path` relative to `cwd` when it is inside it; as it was otherwise. */
function within(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
