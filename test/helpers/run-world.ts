import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import type { RunSettings } from '../../src/settings/run-settings.js';
import { DEFAULT_TASK_FOLDER_PATTERN } from '../../src/task-folder-pattern.js';

/** Settings of a run on this machine, none of its extras on. */
export function plainSettings(over: Partial<RunSettings> = {}): RunSettings {
  return {
    maxParallel: 2,
    timeoutSeconds: 60,
    budgetUsd: 0,
    skipPermissions: false,
    backendSettings: { disallowedTools: [], warm: false },
    debug: false,
    history: false,
    adaptiveWidth: true,
    worktreeMode: 'keep-ignored',
    taskFolderPattern: DEFAULT_TASK_FOLDER_PATTERN,
    onAsk: 'pause',
    ...over,
  };
}

/** A temporary project with a workflow folder `wf` of `files` and a state folder `.raymond/state`; `remove` deletes it. */
export function runProject(files: Record<string, string>): {
  dir: string;
  wf: string;
  stateDir: string;
  events: RunEvent[];
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-run-'));
  const wf = join(dir, 'wf');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(wf, name)), { recursive: true });
    writeFileSync(join(wf, name), text);
  }
  const stateDir = join(dir, '.raymond/state');
  mkdirSync(stateDir, { recursive: true });
  return {
    dir,
    wf,
    stateDir,
    events: [],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
