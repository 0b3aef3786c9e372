import { RUN_AGENT_SETTINGS } from './run-settings-run.js';
import { AGENT_TURN_SETTINGS } from './run-settings-agents.js';
import { OUTPUT_QUEUE_SETTINGS } from './run-settings-output.js';

/**
 * Every run setting: its flag, config key (the record's key; `queue.x` is
 * `x` under `[raymond.queue]`), stored name, default, help and check.
 * Commander's options, the config template and its parsing, a resume's
 * overrides, the state file's `options` and the configuration reference
 * are all made from this table: a new setting is one entry in a group file.
 * Each backend's own settings (AgentBackend.settings) join it where its
 * entries are read (settingEntries), after Agent turns.
 */
// The entries live in one file per few help groups; the spreads keep their order, which the
// help, the config template and the generated reference pages follow.
export const RUN_SETTINGS = {
  ...RUN_AGENT_SETTINGS,
  ...AGENT_TURN_SETTINGS,
  ...OUTPUT_QUEUE_SETTINGS,
};

/** The table's type, for the types made from it. */
export type RunSettingsTable = typeof RUN_SETTINGS;
