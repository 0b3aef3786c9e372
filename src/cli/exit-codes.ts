/** Exit codes of every command, as documented in the README. Only the CLI entry sets them. */
export const EXIT = { completed: 0, failed: 1, asking: 2, invalid: 64, budgetExceeded: 3, paused: 4, interrupted: 130 } as const;
