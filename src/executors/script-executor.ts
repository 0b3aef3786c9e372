import { RaymondError } from '../errors.js';
import { stderrGist } from './one-line.js';
import { attributeEnvironment } from './attribute-env.js';
import {
  timeoutName,
  type Execution,
  type ExecutionRequest,
  type StateExecutor,
} from './executor.js';
import type { SpawnerPool } from './spawner-pool.js';
import type { ValueFiles } from './value-files.js';
import { stepKey } from './step-key.js';

/** The interpreter for a script state on this platform. */
function interpreter(path: string): { file: string; args: string[] } {
  if (path.endsWith('.bat')) return { file: 'cmd.exe', args: ['/d', '/c', path] };
  if (path.endsWith('.ps1'))
    return {
      file: 'powershell.exe',
      args: ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-File', path],
    };
  return { file: 'bash', args: [path] };
}

/**
 * Environment of a script: its fork attributes (under safe names only:
 * attribute-env.ts), then the agent's identity and input, which no attribute
 * can override.
 */
export function scriptEnvironment(
  req: Pick<ExecutionRequest, 'workflowId' | 'agent'>,
  platform: NodeJS.Platform = process.platform,
): Record<string, string | undefined> {
  const env = attributeEnvironment(req.agent.attributes, platform);
  env.RAYMOND_WORKFLOW_ID = req.workflowId;
  env.RAYMOND_AGENT_ID = req.agent.id;
  env.RAYMOND_STEP_KEY = stepKey(req.workflowId, req.agent);
  // Unset rather than inherited: a nested raymond must not leak its input into ours.
  env.RAYMOND_INPUT = req.agent.input ?? undefined;
  env.RAYMOND_RESULT = req.agent.input ?? undefined;
  env.RAYMOND_WORKTREE = req.agent.worktree?.path;
  env.RAYMOND_BRANCH = req.agent.worktree?.branch;
  env.RAYMOND_TASK_FOLDER = req.agent.task_folder;
  // The ask whose answer is RAYMOND_INPUT, in the state an answer led to ({{ask_id}}).
  env.RAYMOND_ASK_ID = req.agent.answered_ask;
  return env;
}

/** How much stderr a debug log keeps of a script step. */
const DEBUG_STDERR_BYTES = 1 << 20;

/**
 * How much of a script's stdout is kept: the last 16 MiB. Tags are read from
 * that tail; the rest is counted and dropped as it streams by, so no output
 * can exhaust the orchestrator's memory or a string's maximum length.
 */
export const MAX_SCRIPT_OUTPUT_BYTES = 16 * 2 ** 20;

/**
 * Runs `.sh` states with bash (`.bat`/`.ps1` on Windows) through the spawner
 * processes and returns their stdout. The orchestrator never forks itself
 * per step: a fork's cost grows with the forking process's memory. Values
 * too large for the environment reach the script through files (value-files.ts).
 */
export function createScriptExecutor(
  spawners: SpawnerPool,
  values: ValueFiles,
  environment: Readonly<Record<string, string>> = {},
): StateExecutor {
  return {
    async execute(req: ExecutionRequest): Promise<Execution> {
      const where = req.scope.display(req.file);
      const path = await req.scope.scriptPath(req.file);
      const { file, args } = interpreter(path);
      const { env, release } = await values.place(
        { ...environment, ...scriptEnvironment(req), ...req.env },
        where,
      );
      const debug = req.debug?.();
      const started = Date.now();
      const result = await spawners
        .run({
          file,
          args,
          cwd: req.agent.cwd,
          env,
          signal: req.signal,
          inactivityMs: req.timeoutMs,
          maxOutputBytes: MAX_SCRIPT_OUTPUT_BYTES,
          ...(debug ? { stderrBytes: DEBUG_STDERR_BYTES } : {}),
        })
        .finally(release);
      debug?.script({
        script: where,
        argv: [file, ...args],
        cwd: req.agent.cwd,
        exit_code: result.exitCode,
        signal: result.signal,
        timed_out: result.timedOut,
        duration_ms: Date.now() - started,
        env,
        stdout: result.stdout,
        stderr: result.stderrTail,
        ...(result.droppedBytes > 0 ? { dropped_bytes: result.droppedBytes } : {}),
      });
      if (result.aborted) throw new RaymondError('ERR_SCRIPT_FAILED', 'stopped', { file: where });
      if (result.spawnError)
        throw new RaymondError(
          'ERR_SCRIPT_START',
          `could not start ${file}: ${result.spawnError}`,
          { file: where },
        );
      if (result.timedOut) {
        throw new RaymondError(
          'ERR_SCRIPT_TIMEOUT',
          `printed nothing for ${Math.round(req.timeoutMs / 1000)} s and was killed (${timeoutName(req)})`,
          { file: where },
        );
      }
      if (result.exitCode !== 0) {
        const how =
          result.exitCode === null
            ? `was killed by ${result.signal}`
            : `exited with code ${result.exitCode}`;
        const tail = result.stderrTail.trim() ? `; stderr: ${stderrGist(result.stderrTail)}` : '';
        throw new RaymondError('ERR_SCRIPT_FAILED', `${how}${tail}`, {
          file: where,
          details: { exitCode: result.exitCode, stderr: result.stderrTail.slice(-4096) },
        });
      }
      const execution: Execution = {
        output: result.stdout,
        session: null,
        costUsd: 0,
        cpuMs: result.cpuMs,
      };
      if (result.droppedBytes > 0) execution.droppedBytes = result.droppedBytes;
      return execution;
    },
  };
}
