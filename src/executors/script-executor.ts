import { RaymondError } from '../errors.js';
import { attributeEnvironment } from './attribute-env.js';
import type { Execution, ExecutionRequest, StateExecutor } from './executor.js';
import type { SpawnerPool } from './spawner-pool.js';

/** The interpreter for a script state on this platform. */
function interpreter(path: string): { file: string; args: string[] } {
  if (path.endsWith('.bat')) return { file: 'cmd.exe', args: ['/d', '/c', path] };
  if (path.endsWith('.ps1')) return { file: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-File', path] };
  return { file: 'bash', args: [path] };
}

/**
 * Environment of a script: its fork attributes (under safe names only:
 * attribute-env.ts), then the agent's identity and input, which no attribute
 * can override.
 */
export function scriptEnvironment(req: Pick<ExecutionRequest, 'workflowId' | 'agent'>, platform: NodeJS.Platform = process.platform): Record<string, string | undefined> {
  const env = attributeEnvironment(req.agent.attributes, platform);
  env.RAYMOND_WORKFLOW_ID = req.workflowId;
  env.RAYMOND_AGENT_ID = req.agent.id;
  // Unset rather than inherited: a nested raymond must not leak its input into ours.
  env.RAYMOND_INPUT = req.agent.input ?? undefined;
  env.RAYMOND_RESULT = req.agent.input ?? undefined;
  env.RAYMOND_WORKTREE = req.agent.worktree?.path;
  env.RAYMOND_BRANCH = req.agent.worktree?.branch;
  return env;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split(/\r?\n/).slice(-n).join(' | ');
}

/** How much stderr a debug log keeps of a script step. */
const DEBUG_STDERR_BYTES = 1 << 20;

/**
 * Runs `.sh` states with bash (`.bat`/`.ps1` on Windows) through the spawner
 * processes and returns their stdout. The orchestrator never forks itself
 * per step: a fork's cost grows with the forking process's memory.
 */
export function createScriptExecutor(spawners: SpawnerPool): StateExecutor {
  return {
    async execute(req: ExecutionRequest): Promise<Execution> {
      const where = req.scope.display(req.file);
      const path = await req.scope.scriptPath(req.file);
      const { file, args } = interpreter(path);
      const env = scriptEnvironment(req);
      const debug = req.debug?.();
      const started = Date.now();
      const result = await spawners.run({ file, args, cwd: req.agent.cwd, env, signal: req.signal, inactivityMs: req.timeoutMs, ...(debug ? { stderrBytes: DEBUG_STDERR_BYTES } : {}) });
      debug?.script({ script: where, argv: [file, ...args], cwd: req.agent.cwd, exit_code: result.exitCode, signal: result.signal, timed_out: result.timedOut, duration_ms: Date.now() - started, env, stdout: result.stdout, stderr: result.stderrTail });
      if (result.aborted) throw new RaymondError('ERR_SCRIPT_FAILED', 'stopped', { file: where });
      if (result.spawnError) throw new RaymondError('ERR_SCRIPT_START', `could not start ${file}: ${result.spawnError}`, { file: where });
      if (result.timedOut) {
        throw new RaymondError('ERR_SCRIPT_TIMEOUT', `printed nothing for ${Math.round(req.timeoutMs / 1000)} s and was killed (--timeout)`, { file: where });
      }
      if (result.exitCode !== 0) {
        const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
        const tail = result.stderrTail.trim() ? `; stderr: ${lastLines(result.stderrTail, 3)}` : '';
        throw new RaymondError('ERR_SCRIPT_FAILED', `${how}${tail}`, { file: where, details: { exitCode: result.exitCode, stderr: result.stderrTail.slice(-4096) } });
      }
      return { output: result.stdout, session: null, costUsd: 0 };
    },
  };
}
