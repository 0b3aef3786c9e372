import type { Command } from 'commander';
import { completionModel } from './completion-model.js';
import { bashScript, fishScript, zshScript, type Shell } from './completion-scripts.js';

/**
 * `raymond completion bash|zsh|fish`: the completion script for that shell,
 * made from `program` as it is now (its commands, options, option choices,
 * and file names where a command takes a workflow path).
 */
export function completionScript(program: Command, shell: Shell): string {
  const model = completionModel(program);
  const name = program.name();
  if (shell === 'bash') return bashScript(model, name);
  if (shell === 'zsh') return zshScript(model, name);
  return fishScript(model, name);
}
