import { Type as T, type Static } from '@sinclair/typebox';
import { checked } from '../schema-problem.js';

/**
 * The workflow test file (`tests/NAME.test.yaml`), as TypeBox schemas: the
 * loader checks a file against them and names the field that is wrong. One
 * file is one test. docs/testing-workflows.md is the format's user guide.
 */

const TEXT = T.String({ pattern: '\\S', must: 'a non-empty string' });

/** Text compared exactly, or a regular expression it must match (`{ match: "^ok" }`). */
export const TEXT_CHECK = T.Union(
  [T.String(), T.Object({ match: TEXT }, { additionalProperties: false })],
  {
    must: 'a string, or { match: REGEX }',
  },
);

/** A tool call the scripted model makes before its final text; Raymond's agent CLI really runs it. */
export const TOOL_CALL = T.Union(
  [
    T.Object({ bash: TEXT }, { additionalProperties: false }),
    T.Object(
      { write: T.Object({ path: TEXT, content: T.String() }, { additionalProperties: false }) },
      { additionalProperties: false },
    ),
    T.Object(
      {
        edit: T.Object(
          { path: TEXT, old: T.String(), new: T.String() },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    T.Object(
      { tool: TEXT, input: T.Record(T.String(), T.Unknown()) },
      { additionalProperties: false },
    ),
  ],
  {
    must: '{ bash: COMMAND }, { write: { path, content } }, { edit: { path, old, new } } or { tool: NAME, input: {...} }',
  },
);

/** Tokens the scripted model reports for one turn; the agent CLI prices them as for a real model. */
export const TOKENS = T.Object(
  {
    input: T.Optional(T.Integer({ minimum: 0 })),
    output: T.Optional(T.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** One turn of a state: its final text alone, or text with tool calls before it and tokens. */
export const TURN = T.Union(
  [
    T.String(),
    T.Object(
      {
        /** Only an agent with this id takes this turn. */
        agent: T.Optional(TEXT),
        /** Only an agent whose fork attributes include all of these takes this turn. */
        when: T.Optional(T.Record(T.String(), T.String())),
        tools: T.Optional(T.Array(TOOL_CALL)),
        text: T.String(),
        tokens: T.Optional(TOKENS),
      },
      { additionalProperties: false },
    ),
  ],
  { must: 'a reply text, or { text, tools, tokens, agent, when }' },
);

/** A script state's stand-in: what it prints and how it exits, instead of running it. */
export const SCRIPT_STUB = T.Object(
  {
    stdout: T.Optional(T.String()),
    exit: T.Optional(T.Integer({ minimum: 0, maximum: 255 })),
  },
  { additionalProperties: false },
);

/** An answer to an `<ask>`: its text, or the text for one agent. */
export const ANSWER = T.Union([
  T.String(),
  T.Object(
    {
      agent: T.Optional(TEXT),
      when: T.Optional(T.Record(T.String(), T.String())),
      text: T.String(),
    },
    { additionalProperties: false },
  ),
]);

/** Final statuses a test can expect. */
export const STATUSES = ['completed', 'failed', 'asking', 'paused', 'budget_exceeded'] as const;

/** What the run must have done. */
export const EXPECT = T.Object(
  {
    status: T.Optional(T.Union(STATUSES.map((s) => T.Literal(s)))),
    exit: T.Optional(T.Integer({ minimum: 0, maximum: 255 })),
    /** Per agent id: the states it ran, in order (names with or without their extension). */
    paths: T.Optional(T.Record(T.String(), T.Array(TEXT))),
    /** Per agent id: its `<result>` text. */
    results: T.Optional(T.Record(T.String(), TEXT_CHECK)),
    /** Per path in the scratch working directory: its content, a pattern, or null for "absent". */
    files: T.Optional(T.Record(T.String(), T.Union([TEXT_CHECK, T.Null()]))),
    /** Per git branch of the scratch repository (`git: true`): files on it, as `files` checks them. */
    branches: T.Optional(
      T.Record(T.String(), T.Record(T.String(), T.Union([TEXT_CHECK, T.Null()]))),
    ),
    cost: T.Optional(
      T.Object(
        {
          at_most: T.Optional(T.Number({ minimum: 0 })),
          exactly: T.Optional(T.Number({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** How many agents the run had, the main agent included. */
    agents: T.Optional(T.Integer({ minimum: 1 })),
    /** States no agent may reach. */
    never: T.Optional(T.Array(TEXT)),
  },
  { additionalProperties: false },
);

/** A test's time limit when its file gives none: a script that never ends (or keeps printing) still does not hang the suite. */
export const DEFAULT_TEST_TIMEOUT_SECONDS = 300;

/** One test file. */
export const TEST_SPEC = T.Object(
  {
    name: T.Optional(TEXT),
    /** The workflow under test, relative to the test file; default: the folder that holds `tests/`. */
    workflow: T.Optional(TEXT),
    input: T.Optional(T.String()),
    /** `raymond run` options, as the config file names them (`budget`, `model`, `max_parallel`...). */
    flags: T.Optional(T.Record(T.String(), T.Union([T.String(), T.Number(), T.Boolean()]))),
    env: T.Optional(T.Record(T.String(), T.String())),
    /** A folder (relative to the test file) copied into the scratch working directory. */
    workdir: T.Optional(TEXT),
    /** Files written into the scratch working directory, after `workdir`. */
    files: T.Optional(T.Record(T.String(), T.String())),
    /** The test's time limit in seconds (default DEFAULT_TEST_TIMEOUT_SECONDS): past it, the run is stopped and the test fails. */
    timeout: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 86400 })),
    /** Make the scratch working directory a git repository, its files in one commit (for worktrees). */
    git: T.Optional(T.Boolean()),
    /** Per state (name with or without extension): its turns, in order. */
    replies: T.Optional(T.Record(T.String(), T.Array(TURN))),
    /** Per script state: a stub; states not named here run for real. */
    scripts: T.Optional(T.Record(T.String(), SCRIPT_STUB)),
    /** Per asking state: the answers to its asks, in order. */
    answers: T.Optional(T.Record(T.String(), T.Array(ANSWER))),
    expect: T.Optional(EXPECT),
  },
  { additionalProperties: false },
);

/** A test file as written. */
export type TestSpec = Static<typeof TEST_SPEC>;
export type Turn = Static<typeof TURN>;
export type ToolCall = Static<typeof TOOL_CALL>;
export type Answer = Static<typeof ANSWER>;
export type TextCheck = Static<typeof TEXT_CHECK>;
export type Expect = Static<typeof EXPECT>;

/** The compiled check of a test file. */
export const TEST_SPEC_CHECK = checked(TEST_SPEC);
