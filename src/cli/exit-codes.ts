/**
 * Exit codes of every command, as documented in the README. Only the CLI
 * entry sets them. `transient` is EX_TEMPFAIL (sysexits.h): a network
 * failure, worth trying again. `interrupted` (SIGINT) and `terminated`
 * (SIGTERM) are 128 plus the signal's number, as shells report them.
 */
export const EXIT = { completed: 0, failed: 1, asking: 2, invalid: 64, transient: 75, budgetExceeded: 3, paused: 4, interrupted: 130, terminated: 143 } as const;
