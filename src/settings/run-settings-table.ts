import { RUN_AGENT_SETTINGS } from './run-settings-run.js';
import { CLAUDE_CODE_SETTINGS } from './run-settings-claude.js';
import { OUTPUT_QUEUE_SETTINGS } from './run-settings-output.js';

/**
 * Every run setting: its flag, config key (the record's key; `queue.x` is
 * `x` under `[raymond.queue]`), stored name, default, help and check.
 * Commander's options, the config template and its parsing, a resume's
 * overrides, the state file's `options` and the configuration reference
 * are all made from this table: a new setting is one entry in a group file.
 */
// The entries live in one file per few help groups; the spreads keep their order, which the
// help, the config template and the generated reference pages follow.
export const RUN_SETTINGS = {
  ...RUN_AGENT_SETTINGS,
  ...CLAUDE_CODE_SETTINGS,
  ...OUTPUT_QUEUE_SETTINGS,
};

/** The table's type, for the types made from it. */
export type RunSettingsTable = typeof RUN_SETTINGS;
