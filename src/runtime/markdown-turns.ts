import { CONTINUE_LATEST, type SessionPlan } from '../executors/executor.js';

/** Reminder re-prompts after a reply that broke the rules, and retries after Claude Code failed. */
export const MAX_REMINDERS = 3;
export const MAX_RETRIES = 3;
/**
 * How long the API may refuse an agent's turns for rate or load (429, 529)
 * before the agent is paused: 15 minutes, some five rounds of Claude Code's
 * own retries. Until then each refused turn is tried again, uncounted.
 */
export const RATE_LIMIT_BOUND_MS = 15 * 60_000;

/** Errors a reminder can fix: the reply, not the workflow, was wrong. */
export const REMINDABLE: ReadonlySet<string> = new Set([
  'ERR_TAG_MISSING',
  'ERR_TAG_MULTIPLE',
  'ERR_TAG_PARSE',
  'ERR_POLICY',
  'ERR_TARGET_INVALID',
  'ERR_STATE_NOT_FOUND',
  'ERR_STATE_AMBIGUOUS',
  'ERR_STATE_UNSUPPORTED',
  'ERR_CD',
]);

/** Where a markdown step stands between two Claude Code turns. */
export interface TurnState {
  /** The session the state started from; a retry starts over from it. */
  first: SessionPlan;
  /** The session the next turn runs in. */
  plan: SessionPlan;
  retries: number;
  reminders: number;
  /** When the API began refusing this step's turns for rate or load, while it still does (epoch ms). */
  limitedSince?: number;
  /** Which of the step's models the next turn asks for: 0 its own, n its n-th fallback model. */
  modelAt: number;
  /** Fallback models the step may move on to itself: none where the backend's CLI goes through them. */
  fallbacks: number;
  /** The problem with the last reply, when the next turn is a reminder. */
  remind?: string;
}

/** What happened to the last turn, when it did not give a usable reply. */
export type TurnEvent =
  /**
   * Claude Code failed (crash, timeout, error result) or hit a usage limit.
   * `sessionInUse`: it refused the reserved session id because the session
   * exists: a killed run or an earlier attempt began it. `limited`: the API
   * refused it for rate or load (429, 529) after the backend's own retries,
   * at `now`. `onModel`: it failed on its model (overloaded, 529, or one the
   * API does not have) with fallback models the backend did not try.
   * `refused`: no retry of the same turn can cure it.
   */
  | {
      type: 'turn.failed';
      usageLimit: boolean;
      aborted: boolean;
      sessionInUse: boolean;
      limited?: boolean;
      onModel?: boolean;
      refused?: boolean;
      now?: number;
    }
  /** The reply's transition cannot be used; `remindable` when a reminder may fix it. */
  | { type: 'reply.unusable'; session: string | null; problem: string; remindable: boolean };

/** What to do next: run another turn, or give up on the step (the reason says how to report it). */
export type TurnAction =
  | {
      next: 'turn';
      state: TurnState;
      why: 'resume-reserved' | 'retry' | 'rate-limited' | 'fallback' | 'remind';
    }
  | {
      next: 'give-up';
      reason:
        | 'usage-limit'
        | 'aborted'
        | 'refused'
        | 'retries'
        | 'rate-limited'
        | 'reminders'
        | 'not-remindable';
    };

/**
 * The first turn of a markdown state: resume the agent's session, branch
 * from the caller's, or start the reserved one; `fallbacks` the step moves
 * on to itself when a turn fails on its model.
 */
export function startTurns(
  agent: {
    session: string | null;
    branchFrom: string | null;
    next_session?: string;
  },
  fallbacks = 0,
): TurnState {
  let first: SessionPlan;
  if (agent.session && !agent.branchFrom) first = { kind: 'resume', session: agent.session };
  else if (agent.branchFrom === CONTINUE_LATEST)
    first = { kind: 'continue', id: agent.next_session };
  else if (agent.branchFrom)
    first = { kind: 'branch', from: agent.branchFrom, id: agent.next_session };
  else first = { kind: 'fresh', id: agent.next_session };
  return { first, plan: first, retries: 0, reminders: 0, modelAt: 0, fallbacks };
}

/**
 * The markdown turn policy, pure: a reserved session that already exists is
 * continued (no retry is counted); a failed turn is retried from the state's
 * starting session up to MAX_RETRIES times, but never after a usage limit or
 * a stop; a turn that failed on its model goes again with the next fallback
 * model, uncounted; a turn the API refused for rate or load is tried again uncounted
 * (with the step's own model first again) until it has refused for RATE_LIMIT_BOUND_MS; a reply with an unusable transition gets a reminder in the session
 * it ran in, up to MAX_REMINDERS times.
 */
export function nextTurn(state: TurnState, event: TurnEvent): TurnAction {
  switch (event.type) {
    case 'turn.failed':
      if (event.sessionInUse && state.plan.kind !== 'resume' && state.plan.id) {
        const first: SessionPlan = { kind: 'resume', session: state.plan.id };
        return {
          next: 'turn',
          why: 'resume-reserved',
          state: { ...state, first, plan: first, remind: undefined },
        };
      }
      if (event.usageLimit) return { next: 'give-up', reason: 'usage-limit' };
      if (event.aborted) return { next: 'give-up', reason: 'aborted' };
      if (event.onModel && state.modelAt < state.fallbacks)
        return {
          next: 'turn',
          why: 'fallback',
          state: { ...state, plan: state.first, modelAt: state.modelAt + 1, remind: undefined },
        };
      if (event.refused) return { next: 'give-up', reason: 'refused' };
      if (event.limited) {
        const now = event.now ?? 0;
        const since = state.limitedSince ?? now;
        if (now - since >= RATE_LIMIT_BOUND_MS) return { next: 'give-up', reason: 'rate-limited' };
        // As Claude Code does: the step's own model is asked again at the start of each turn.
        return {
          next: 'turn',
          why: 'rate-limited',
          state: {
            ...state,
            plan: state.first,
            limitedSince: since,
            modelAt: 0,
            remind: undefined,
          },
        };
      }
      if (state.retries >= MAX_RETRIES) return { next: 'give-up', reason: 'retries' };
      return {
        next: 'turn',
        why: 'retry',
        state: {
          ...state,
          plan: state.first,
          retries: state.retries + 1,
          limitedSince: undefined,
          remind: undefined,
        },
      };
    case 'reply.unusable': {
      if (!event.remindable) return { next: 'give-up', reason: 'not-remindable' };
      if (state.reminders >= MAX_REMINDERS) return { next: 'give-up', reason: 'reminders' };
      const plan: SessionPlan = event.session
        ? { kind: 'resume', session: event.session }
        : state.first;
      return {
        next: 'turn',
        why: 'remind',
        state: { ...state, plan, reminders: state.reminders + 1, remind: event.problem },
      };
    }
  }
}
