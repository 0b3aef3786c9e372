import type { GatedApi } from '../gate/api-gates.js';
import type { RunEventSink } from '../../machines/run-events.js';
import type { StateExecutor } from '../executors/executor.js';
import type { Grant } from '../language/grant.js';
import type { AnySetting } from '../setting.js';
import type { PricedModel } from './model-price.js';
import type { ModelApi } from './model-api.js';
import type { RunKeep } from './run-keep.js';

/** A backend's `options` as its manifest gave them, once its own parser has checked them. */
export type BackendOptions = Readonly<Record<string, unknown>>;

/**
 * What a run gives a backend's executor: the same for every backend. What
 * one backend alone reads (Claude Code's binary, its permission mode) is
 * one of its own `settings`, whose values come in `settings`.
 */
export interface BackendRuntime {
  /** `--dangerously-skip-permissions`: the CLI runs any tool without asking. */
  skipPermissions: boolean;
  /** The run's event stream: a turn's text and denials are shown as they arrive. */
  emit: RunEventSink;
  /** The run's own environment variables, given to every turn (a test's ticket, a server run's `environment`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The values of the backends' own settings (AgentBackend.settings), by
   * their `run` names; each backend reads its own.
   * @default {} (every backend's defaults)
   */
  settings: Readonly<Record<string, unknown>>;
  /**
   * Most turns at once on this machine: a backend that keeps processes
   * alive between turns keeps no more than this many.
   * @default none kept: an executor made for one turn (`raymond test`'s)
   */
  turnSlots?: number;
  /**
   * The width each backend's turns pass: fewer start while its account
   * refuses them, none while its usage is spent. A run's is its process's
   * (AccountWidths: shared by the runs of `raymond serve`), a queue
   * worker's is shared through Redis with every worker of the account
   * (SharedWidth). The executor closes each width it took.
   * @default no width: every turn starts when the run gives it a slot (`--no-adaptive-width`)
   */
  widthOf?: (backend: string) => TurnWidth;
  /**
   * Where what a backend keeps between turns lives when it must outlive the
   * executor (a queue worker's executor per job); absent: the executor's own.
   */
  keep?: RunKeep;
  /** USD per million tokens by model, from the config's `[raymond.prices]`: over a backend's own table. */
  prices?: Readonly<Record<string, PriceOverride>>;
}

/**
 * How many turns start at once against one backend's account: each turn
 * waits for its place, then tells how it went. AccountWidth keeps it for a
 * run; SharedWidth for every queue worker of the account.
 */
export interface TurnWidth {
  /**
   * Waits for a turn's place. Aborted: throws ERR_AGENT_FAILED `stopped`;
   * parked by a usage limit: throws ERR_USAGE_LIMIT with its reset.
   */
  acquire(signal: AbortSignal): Promise<void>;
  /** A turn ended; `answered` when the account served it. Settles once the width took it in. */
  release(answered: boolean): Promise<void> | void;
  /** The account refused a request for its rate (429) or its load (529); the turn retries after `delayMs`. */
  limited(status: 429 | 529, delayMs: number | null): void;
  /** The account's usage is spent until `resetsAt` (epoch ms): no turn starts before then (and RESET_MARGIN_MS more). */
  park(resetsAt: number, message: string): void;
  /** The run is done with the width (one shared by runs forgets it). */
  close?(): void;
  /**
   * Variables every turn of the account runs with: the address of its
   * request gate (api-gate.ts), opened on the first call. Absent: none.
   */
  env?(): Promise<Readonly<Record<string, string>>>;
}

/** The config's `[raymond.prices]`: USD per million tokens by model. */
export type PriceOverrides = Readonly<Record<string, PriceOverride>>;

/** One model's price as the config writes it (USD per million tokens). */
export interface PriceOverride {
  input: number;
  cached_input?: number;
  output: number;
}

/** Where a backend keeps its sessions, so a session can move between machines and folders. */
export interface BackendSessions {
  /** The file that holds session `id` on this machine, if there is one (`cwd`: the folder it ran in last). */
  find(
    id: string,
    cwd: string,
    options: BackendOptions,
    env: NodeJS.ProcessEnv,
  ): string | undefined;
  /**
   * Where the file of session `id` goes so this backend resumes it from
   * `cwd`; `name` is its file name where it was collected.
   */
  placeFor(
    id: string,
    name: string,
    cwd: string,
    options: BackendOptions,
    env: NodeJS.ProcessEnv,
  ): string;
  /**
   * The session a session's file cannot be resumed without (a Codex fork
   * holds only its own turns and reads its parent's file), read from the
   * file's text: it travels with it. Absent: every file stands alone.
   */
  baseOf?(text: string): string | undefined;
}

/** A tool call a test scripts for a turn (`raymond test`), before a backend names it its way. */
export type ScriptedCall =
  | { bash: string }
  | { write: { path: string; content: string } }
  | { edit: { path: string; old: string; new: string } }
  | { tool: string; input: Record<string, unknown> };

/** One model turn read back from a step's debug stream: what a recorded test's reply replays. */
export interface RecordedTurn {
  /** The turn's final text. */
  text: string;
  /** The tool calls it made before that text, in order, as a test file writes them. */
  tools: ScriptedCall[];
  /** Tokens the turn used: input (cache reads and writes included) and output. */
  tokens: { input: number; output: number };
}

/** A tool call as a backend's CLI receives it from its model. */
export interface CliToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** The header that carries a step's ticket on every model request of a `raymond test` step. */
export const STEP_HEADER = 'x-raymond-step';

/**
 * How `raymond test` runs a backend's real CLI against its scripted model:
 * offline, each model request carrying the step's ticket.
 */
export interface ScriptedSetup {
  /**
   * The API its model requests speak, which the scripted model answers:
   * one of the seam's (ANTHROPIC_MESSAGES, OPENAI_RESPONSES) or its own.
   */
  readonly api: ModelApi;
  /** A test's tool call as this CLI's tools take it (Claude Code reads a file before it writes it: two calls). */
  toolCalls(call: ScriptedCall, cwd: string): CliToolCall[];
  /**
   * Sets the CLI up in a test's scratch folder so that its only model is the
   * scripted one at `url` (the server's root) and every request sends
   * RAYMOND_TEST_STEP's value in STEP_HEADER; gives the variables it needs
   * (undefined removes one), over the test's common ones.
   */
  environment(scratch: string, url: string): Record<string, string | undefined>;
  /**
   * The turns of one step's debug stream, for `raymond record`: undefined
   * when the stream is not this CLI's. (Claude Code's and pi's are read by
   * src/testing/record-stream.ts.)
   */
  recordTurns?(stream: string, cwd: string): RecordedTurn[] | undefined;
  /** Variables of one step, for a CLI that cannot read the ticket from RAYMOND_TEST_STEP. */
  stepEnvironment?(ticket: string): Record<string, string>;
}

/**
 * An agent CLI Raymond runs markdown states on. Everything the rest of
 * Raymond knows of one is here: its options, which models and efforts it
 * takes, which grant keys it honours, how it is found, how its turns run
 * (argv, stream, sessions, cost and failures live in its executor), where
 * its sessions are kept, and its prices. A new backend is one folder with
 * one of these, and one line in the registry.
 */
export interface AgentBackend {
  /** As a manifest names it: `backend: codex`. */
  readonly name: string;
  /** As messages name its CLI: `Claude Code`, `pi`, `Codex`. */
  readonly title: string;
  /**
   * Checks a manifest's `backend.options` (a mapping; undefined when not
   * given) and gives them as the executor reads them; each problem is one
   * `bad(...)` line (the caller names the file). A backend that takes no
   * options refuses the key.
   */
  parseOptions(
    options: Record<string, unknown> | undefined,
    bad: (message: string) => never,
  ): BackendOptions;
  /** Why a state's `model:` (or `--model`) is not this backend's, if it is not. */
  modelProblem(model: string): string | undefined;
  /** Why a state's `effort:` (or `--effort`) is not this backend's, if it is not. */
  effortProblem(effort: string): string | undefined;
  /** Every effort it takes, for `--effort`'s help and completion. */
  readonly efforts: readonly string[];
  /** What its models are called, for `--model`'s help: `opus, sonnet, haiku or a full model name`. */
  readonly modelHint: string;
  /** Why a state's grant asks what this backend cannot do (`key: ...`, naming the backend), if it does. */
  grantProblem(grant: Grant): string | undefined;
  /**
   * Finds (and checks) its CLI before any state runs: missing is one line
   * naming its package. `settings`: as BackendRuntime's (its binary's path).
   */
  preflight(env: NodeJS.ProcessEnv, settings: Readonly<Record<string, unknown>>): Promise<void>;
  /**
   * Its own run settings: flags and config keys only its turns read, by
   * config key, listed under its title in the help and the reference.
   * Their values reach its executor and preflight in `settings`.
   */
  readonly settings?: Readonly<Record<string, AnySetting>>;
  /**
   * The executor of its turns for one run (or one worker's run, or one
   * merge turn); `close()` ends what it keeps between turns.
   */
  executor(runtime: BackendRuntime): StateExecutor;
  readonly sessions: BackendSessions;
  /** How `raymond test` runs it against the scripted model. */
  readonly scripted: ScriptedSetup;
  /** Whose price table `priceOf` reads (`Claude`, `OpenAI`), and the day it was taken: forecasts say so. */
  readonly priceTable: { readonly name: string; readonly taken: string };
  /** A model's price for forecasts, and, for a CLI that reports tokens only, for charging. */
  priceOf(model: string | undefined, overrides?: BackendRuntime['prices']): PricedModel;
  /**
   * The model names offered in lists and completion (serve's launch form):
   * commonly used ones, each one modelProblem takes; any other it takes can
   * be typed.
   */
  readonly models: readonly string[];
  /**
   * Why a tool a grant names (`tools`, `allowed_tools`, `disallowed_tools`:
   * `Bash` or `Bash(git *)`) is not one this backend knows, for lint's
   * warning. Absent: its tool names are not checked.
   */
  toolProblem?(tool: string): string | undefined;
  /**
   * The model API its turns call with `env`, when Raymond may put its
   * request gate in front of it (src/gate/): the variable that
   * names the API's base URL to the CLI, and the URL it names now.
   * Absent, or undefined for `env` (Claude Code on Bedrock or Vertex): its
   * turns pass the account's width alone.
   */
  api?(env: Readonly<Record<string, string | undefined>>): GatedApi | undefined;
}
