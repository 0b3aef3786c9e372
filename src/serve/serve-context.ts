import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunSettings } from '../settings/run-settings.js';
import type { AskStaging } from './ask-staging.js';
import type { UploadCaps } from './ask-affordance.js';
import type { RunPool } from './run-pool.js';
import type { WorkflowRegistry } from './workflow-registry.js';

/** What the routes work with: the workflows, the runs, and the server's settings. */
export interface ServeContext {
  registry: WorkflowRegistry;
  pool: RunPool;
  staging: AskStaging;
  /** Settings of a new run before the request's own (from the config file and the flags). */
  baseSettings: RunSettings;
  /** The budget runs get when neither the request nor the manifest gives one. */
  defaultBudgetUsd: number;
  /** `--workdir`: runs' default directory, and the folder `working_directory` must stay in (absent: the server's own directory, not enforced). */
  workdir: string | undefined;
  /** The server's directory: where runs work without `--workdir` or `working_directory`. */
  cwd: string;
  uploadCaps: Partial<UploadCaps>;
  /** The token requests must carry; undefined: none needed (loopback without --token). */
  token: string | undefined;
  /** Lines for the server's log (stderr). */
  say: (line: string) => void;
}

/** A route's handler: the request, the answer, the path's parameters, and the URL. */
export type Handler = (
  ctx: ServeContext,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
  url: URL,
) => Promise<void> | void;
