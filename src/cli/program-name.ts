import { basename } from 'node:path';

/**
 * The command name the user ran Raymond by: `ray` when installed and called
 * as `ray` (both bins point at the same main.js), else `raymond`. Help,
 * usage errors, the error prefix and resume hints all say it, so what the
 * user reads is what they can type.
 */
export function commandName(argv1 = process.argv[1] ?? ''): string {
  return basename(argv1).replace(/\.js$/, '') === 'ray' ? 'ray' : 'raymond';
}
