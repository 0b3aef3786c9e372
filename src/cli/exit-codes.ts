import { STATUS_EXIT } from '../runtime/status-exit.js';

/**
 * Exit codes of every command, as documented in docs/reference/exit-codes.md (generated from EXIT_MEANINGS). Only the CLI
 * entry sets them. `transient` is EX_TEMPFAIL (sysexits.h): a network
 * failure, worth trying again. `interrupted` (SIGINT) and `terminated`
 * (SIGTERM) are 128 plus the signal's number, as shells report them.
 */
export const EXIT = {
  completed: STATUS_EXIT.completed,
  failed: STATUS_EXIT.failed,
  asking: STATUS_EXIT.asking,
  invalid: 64,
  transient: 75,
  budgetExceeded: STATUS_EXIT.budget_exceeded,
  paused: STATUS_EXIT.paused,
  interrupted: 130,
  terminated: 143,
} as const;

/** What each exit code says, for docs/reference/exit-codes.md; a new code without a meaning does not type-check. */
export const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  completed: 'The command did what it was asked: the run completed, the listing was printed.',
  failed:
    'The run failed (an agent failed and nothing handled it), or a command failed while running.',
  asking:
    'The run paused on a question (`--on-ask=pause`): the question is JSON on stdout; answer with `raymond --resume ID --input TEXT`.',
  budgetExceeded:
    'The run stopped starting steps (with `--budget-hard`, stopped its running turns too): it cost more than `--budget`. Resume with a larger budget.',
  paused:
    'The run paused: every live agent hit a usage limit (`--no-wait`) or was paused; `raymond --resume ID` goes on.',
  invalid:
    'A usage mistake or bad input found before running (a flag, the config file, the workflow): one line says what.',
  transient:
    'A server Raymond needs could not be reached (a remote workflow, Redis): trying again later may work.',
  interrupted: "Ctrl-C (SIGINT) or the live page's cancel button: the run stays resumable.",
  terminated: 'SIGTERM (128 + 15, as shells report it): the run stays resumable.',
};
