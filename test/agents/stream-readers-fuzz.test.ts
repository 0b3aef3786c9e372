import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamReader } from '../../src/agents/claude/stream-reader.js';
import { CodexStreamReader } from '../../src/agents/codex/codex-stream.js';
import { PiStreamReader } from '../../src/agents/pi/pi-stream.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** A backend's stream reader as the fuzzer drives it: lines in, a summary out. */
interface Reader {
  write(chunk: string): void;
  finish(): { badLines: number; numbers: number[] };
}

// Lines of each stream format, as the agent CLIs print them (shortened).
const CORPUS: Record<string, { lines: string[]; make: () => Reader }> = {
  claude: {
    lines: [
      '{"type":"system","subtype":"init","session_id":"s-1","tools":["Bash"]}',
      '{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s-1"}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"no"}]}}',
      '{"type":"system","subtype":"permission_denied","tool_use_id":"t1","tool_name":"Bash"}',
      '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1760000000}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"<result>ok</result>","total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":5},"modelUsage":{"m":{"inputTokens":10,"outputTokens":5}},"permission_denials":[{"tool_use_id":"t1","tool_name":"Bash","tool_input":{"command":"ls"}}]}',
    ],
    make() {
      const r = new StreamReader(() => {}, new Set(['Read']));
      return {
        write: (c) => r.write(c),
        finish: () => {
          r.end();
          const s = r.summary;
          return {
            badLines: s.badLines,
            numbers: [s.invocationTokens, s.reportedTokens],
          };
        },
      };
    },
  },
  pi: {
    lines: [
      '{"type":"session","id":"p-1"}',
      '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"cost":{"total":0.002},"totalTokens":40}}}',
      '{"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","args":{"command":"ls"}}',
      '{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","isError":true}',
      '{"type":"agent_end","messages":[{"role":"user","content":[]},{"role":"assistant","content":[{"type":"text","text":"<result>ok</result>"}],"stopReason":"stop"}]}',
    ],
    make() {
      const r = new PiStreamReader(() => {}, new Set(['read']));
      return {
        write: (c) => r.write(c),
        finish: () => {
          const s = r.end();
          return { badLines: s.badLines, numbers: [s.costUsd, s.tokens] };
        },
      };
    },
  },
  codex: {
    lines: [
      '{"type":"thread.started","thread_id":"c-1"}',
      '{"type":"item.completed","item":{"type":"agent_message","text":"<result>ok</result>"}}',
      '{"type":"item.completed","item":{"type":"file_change","status":"declined","changes":[{"path":"a"}]}}',
      '{"type":"item.completed","item":{"type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"error":{"message":"requires approval"}}}',
      '{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401)"}',
      '{"type":"turn.failed","error":{"message":"boom"}}',
      '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":1,"output_tokens":5,"reasoning_output_tokens":0}}',
    ],
    make() {
      const r = new CodexStreamReader(() => {});
      return {
        write: (c) => r.write(c),
        finish: () => {
          const s = r.end();
          const u = s.usage;
          return {
            badLines: s.badLines,
            numbers: u ? [u.input_tokens, u.cached_input_tokens, u.output_tokens] : [],
          };
        },
      };
    },
  },
};

/** JSON values of every type, the ones a reader is least ready for among them. */
const ODD_VALUES: unknown[] = [null, 0, -1, 1e308, 'text', '', true, [], [null], {}, { a: null }];
/** Whole lines that are JSON but not objects. */
const NOT_OBJECTS = ['null', '42', '-1e400', '"text"', 'true', '[]', '[{"type":"result"}]'];

/** A copy of `value` with one field, somewhere inside it, replaced by an odd value. */
function mutate(value: unknown, random: () => number): unknown {
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = Array.isArray(value)
    ? { ...value }
    : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
  const key = keys[Math.floor(random() * keys.length)]!;
  copy[key] =
    random() < 0.5
      ? ODD_VALUES[Math.floor(random() * ODD_VALUES.length)]
      : mutate(copy[key], random);
  return Array.isArray(value) ? Object.values(copy) : copy;
}

describe('stream readers: one bad line is a counted bad line, never a crash', () => {
  for (const [name, { lines, make }] of Object.entries(CORPUS)) {
    it(`${name}: lines that are JSON but not objects are each counted`, () => {
      const r = make();
      r.write(NOT_OBJECTS.map((l) => `${l}\n`).join('') + lines.join('\n') + '\n');
      assert.equal(r.finish().badLines, NOT_OBJECTS.length);
    });

    it(`${name}: 2,000 streams with fields of the wrong type and cut lines`, () => {
      for (let seed = 1; seed <= 2000; seed++) {
        const random = seededRandom(seed);
        const stream = lines.map((l) => {
          const roll = random();
          if (roll < 0.1) return l.slice(0, Math.floor(random() * l.length)); // cut
          return roll < 0.7 ? JSON.stringify(mutate(JSON.parse(l), random)) : l;
        });
        const r = make();
        const text = stream.join('\n') + '\n';
        // Chunks of any size, as a pipe delivers them.
        const size = 1 + Math.floor(random() * 64);
        try {
          for (let i = 0; i < text.length; i += size) r.write(text.slice(i, i + size));
          for (const n of r.finish().numbers)
            assert.ok(Number.isFinite(n) && n >= 0, `a figure of ${n}`);
        } catch (err) {
          assert.fail(`seed ${seed}: ${String(err)}\n${text}`);
        }
      }
    });
  }
});
