import type { AgentBackend } from '../agent-backend.js';
import { EFFORTS, isModelName, MODEL_CHOICES, MODELS } from './claude-argv.js';
import { claudeExecutorFor } from './claude-runtime.js';
import { CLAUDE_SETTINGS, claudeSettingsOf } from './claude-settings.js';
import { PRICES_TAKEN, priceOf } from '../anthropic-prices.js';
import { CLAUDE_SCRIPTED } from './claude-scripted.js';
import { findTranscript, transcriptPath } from './claude-sessions.js';
import { claudeCli } from './claude-version.js';
import { findClaude } from './find-claude.js';
import { claudeToolProblem } from './claude-tools.js';
import { claudeApi } from './claude-api.js';

/**
 * Claude Code, the backend of every workflow that names none: its
 * aliases or full model ids, its efforts, every grant key, transcripts
 * kept per project folder, and a price table for forecasts only (it
 * reports each turn's cost itself).
 */
export const CLAUDE: AgentBackend = {
  name: 'claude',
  title: 'Claude Code',
  parseOptions(options, bad) {
    if (options !== undefined) bad('the claude backend takes no options');
    return {};
  },
  modelProblem: (m) => (isModelName(m) ? undefined : `model "${m}" is not ${MODEL_CHOICES}`),
  modelHint: MODEL_CHOICES,
  efforts: EFFORTS,
  effortProblem: (e) =>
    (EFFORTS as readonly string[]).includes(e)
      ? undefined
      : `effort "${e}" is not one of ${EFFORTS.join(', ')}`,
  grantProblem: () => undefined,
  preflight: async (env, settings) =>
    void (await claudeCli(findClaude(claudeSettingsOf(settings).claudeBin, env), env)),
  settings: CLAUDE_SETTINGS,
  executor: claudeExecutorFor,
  sessions: {
    find: (id, cwd, _options, env) => findTranscript(id, cwd, env),
    // Claude Code finds a session by the folder it runs in.
    placeFor: (id, _name, cwd, _options, env) => transcriptPath(cwd, id, env),
  },
  scripted: CLAUDE_SCRIPTED,
  priceTable: { name: 'Claude', taken: PRICES_TAKEN },
  priceOf: (model) => priceOf(model),
  models: MODELS,
  toolProblem: claudeToolProblem,
  api: claudeApi,
};
