import type { Redis } from 'ioredis';
import type { SharedPace } from '../gate/api-gate.js';

/** Redis's clock in epoch ms: every worker reads the same one. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** An idle account's pace is forgotten after this long (ms). */
const IDLE_MS = 600_000;

/**
 * Reserves the account's next send slot (GCRA with no burst: the
 * theoretical arrival time of the next request, one spacing after the last
 * reserved), and past any hold. No burst: a worker's gate sees only its own
 * answers, so it cannot know how much of the account's bucket the others
 * took (their first requests go before the rate is known, outside this
 * pace); strict spacing leaves the bucket's slack for that and for the
 * network's jitter. KEYS: arrival time, hold. ARGV: requests a second,
 * this worker's own hold (ms from now). Gives the ms to wait for the slot.
 */
const SLOT = `${NOW}
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local hold = tonumber(redis.call('GET', KEYS[2]) or '0')
local interval = 1000 / tonumber(ARGV[1])
local at = math.max(now, now + tonumber(ARGV[2]), tat, hold)
redis.call('SET', KEYS[1], tostring(math.max(tat, at) + interval), 'PX', ${IDLE_MS})
return math.floor(at - now)`;

/** Holds every worker's sends of the account for ARGV[1] ms from now (a refusal's wait). KEYS: hold. */
const HOLD = `${NOW}
local untilMs = now + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], tostring(untilMs), 'PX', math.floor(tonumber(ARGV[1])) + 1000)
end
return 0`;

/**
 * An account's request pace shared by every queue worker through Redis: each
 * worker's gate reserves its next send slot here, so the workers together
 * send at the account's rate, as one gate would, and a refusal one of them
 * holds for holds them all. `key`: the account's (worker-widths.ts).
 */
export function sharedPace(redis: Redis, key: string): SharedPace {
  const keys = [`${key}:pace`, `${key}:pace-hold`] as const;
  return {
    async slot(perSecond, holdMs) {
      const args = [String(perSecond), String(Math.max(0, holdMs))];
      return Number(await redis.eval(SLOT, 2, ...keys, ...args));
    },
    async hold(ms) {
      await redis.eval(HOLD, 1, keys[1], String(Math.max(0, Math.ceil(ms))));
    },
  };
}
