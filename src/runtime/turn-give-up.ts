import { RaymondError } from '../errors.js';
import type { AllowedTransition } from '../language/frontmatter.js';
import { formatAllowed } from '../language/policy.js';
import {
  MAX_REMINDERS,
  RATE_LIMIT_BOUND_MS,
  type TurnAction,
  type TurnState,
} from './markdown-turns.js';

/** The error a markdown step gives up with: the turn's own, with how many tries it took. */
export function giveUp(
  reason: Extract<TurnAction, { next: 'give-up' }>['reason'],
  err: RaymondError,
  state: TurnState,
  allowed: AllowedTransition[] | undefined,
): RaymondError {
  const details = { ...err.details };
  switch (reason) {
    case 'retries':
      return new RaymondError(
        err.code,
        `${err.message} (failed ${state.retries + 1} times; the agent is paused)`,
        { file: err.file, details },
      );
    case 'rate-limited':
      return new RaymondError(
        err.code,
        `${err.message} (the API refused this agent's turns for ${RATE_LIMIT_BOUND_MS / 60_000} minutes; the agent is paused)`,
        { file: err.file, details },
      );
    case 'reminders':
      return new RaymondError(
        'ERR_POLICY',
        `still no usable transition after ${MAX_REMINDERS} reminders: ${err.message}; allowed: ${allowed!.map(formatAllowed).join(', ')}`,
        { file: err.file },
      );
    default:
      return err;
  }
}
