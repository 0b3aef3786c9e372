import type { Redis } from 'ioredis';
import type { WidthState } from '../agents/width-rules.js';

/**
 * The Lua scripts that keep an account's shared width in Redis (SharedWidth),
 * each one atomic. Redis's clock (TIME) is the only clock, so workers whose
 * clocks differ agree on holds and leases. Scripts take and decide places and
 * read the state; the arithmetic of a change is width-rules.ts's, done in
 * the worker and written back only if no other worker wrote in between
 * (a version number: compare and set).
 */

/** Redis's clock in epoch ms. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** A missing state (new, or expired while idle) starts as slow start's width. */
const INIT = `if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'width', ARGV[2], 'v', 0)
end`;

/**
 * Takes a place (a lease that lapses at now + leaseMs) when one is free and
 * no hold or park says wait. KEYS: state, leases. ARGV: lease, start width,
 * leaseMs, ceiling, ttlMs. Gives ['ok'], ['wait', ms of hold left] or
 * ['parked', until, message].
 */
const ACQUIRE = `${NOW}
${INIT}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local s = redis.call('HMGET', KEYS[1], 'width', 'holdUntil', 'parkedUntil', 'parkMessage')
local parked = tonumber(s[3] or '0') or 0
if parked > now then return {'parked', tostring(parked), s[4] or ''} end
local hold = tonumber(s[2] or '0') or 0
local width = math.min(tonumber(s[1]), tonumber(ARGV[4]))
if now >= hold and redis.call('ZCARD', KEYS[2]) < width then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  return {'ok'}
end
return {'wait', tostring(math.max(0, hold - now))}`;

/** The state's fields, in the order READ gives them after now and running. */
const FIELDS = [
  'v',
  'width',
  'credit',
  'probing',
  'lastDecrease',
  'refusedAt',
  'holdUntil',
  'parkedUntil',
] as const;

/**
 * Reads the state, and the turns running (leases not lapsed) before `lease`
 * is given back, if one is: then wakes the waiting workers. KEYS: state,
 * leases. ARGV: lease or '', start width, wake channel.
 */
const READ = `${NOW}
${INIT}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local running = redis.call('ZCARD', KEYS[2])
if ARGV[1] ~= '' and redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('PUBLISH', ARGV[3], 'free')
end
local s = redis.call('HMGET', KEYS[1], ${FIELDS.map((f) => `'${f}'`).join(', ')})
local out = {tostring(now), tostring(running)}
for i = 1, #s do out[i + 2] = s[i] or '' end
return out`;

/**
 * Writes fields if the state's version is still `v` (else 0: another worker
 * wrote first), and wakes the waiting workers when asked. KEYS: state.
 * ARGV: v, wake channel or '', ttlMs, then field, value pairs.
 */
const WRITE = `local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[1] then return 0 end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if ARGV[2] ~= '' then redis.call('PUBLISH', ARGV[2], 'changed') end
return 1`;

/** Pushes back the lapse of the leases of turns still running. KEYS: leases. ARGV: leaseMs, leases. */
const REFRESH = `${NOW}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
return 1`;

const SCRIPTS = {
  raymondWidthAcquire: { numberOfKeys: 2, lua: ACQUIRE },
  raymondWidthRead: { numberOfKeys: 2, lua: READ },
  raymondWidthWrite: { numberOfKeys: 1, lua: WRITE },
  raymondWidthRefresh: { numberOfKeys: 1, lua: REFRESH },
};

type Call = (...args: Array<string | number>) => Promise<unknown>;

/** The shared width's state as READ gives it. */
export interface SharedState {
  /** Redis's clock (epoch ms), and the turns running on every worker. */
  now: number;
  running: number;
  /** The version a write must find to take. */
  v: string;
  s: WidthState;
  parkedUntil: number;
}

/** The scripts on one connection (EVALSHA, sending a script only when Redis does not have it). */
export function widthScripts(redis: Redis) {
  for (const [name, script] of Object.entries(SCRIPTS))
    if (!(name in redis)) redis.defineCommand(name, script);
  const call = (name: keyof typeof SCRIPTS) =>
    (redis as unknown as Record<string, Call>)[name]!.bind(redis);
  const acquire = call('raymondWidthAcquire');
  const read = call('raymondWidthRead');
  const write = call('raymondWidthWrite');
  const refresh = call('raymondWidthRefresh');
  return {
    acquire: async (keys: [string, string], ...args: Array<string | number>) =>
      (await acquire(...keys, ...args)) as string[],
    async read(keys: [string, string], lease: string, start: number, channel: string) {
      const r = (await read(...keys, lease, start, channel)) as string[];
      const f = (name: (typeof FIELDS)[number]) => r[2 + FIELDS.indexOf(name)]!;
      const num = (name: (typeof FIELDS)[number], absent: number) =>
        f(name) === '' ? absent : Number(f(name));
      const state: SharedState = {
        now: Number(r[0]),
        running: Number(r[1]),
        v: f('v'),
        s: {
          width: num('width', start),
          credit: num('credit', 0),
          probing: f('probing') !== '0',
          lastDecrease: num('lastDecrease', Number.NEGATIVE_INFINITY),
          refusedAt: num('refusedAt', Number.POSITIVE_INFINITY),
          holdUntil: num('holdUntil', 0),
        },
        parkedUntil: num('parkedUntil', 0),
      };
      return state;
    },
    /** Whether the write took (no other worker wrote since the read that gave `v`). */
    async write(
      key: string,
      v: string,
      wake: string,
      ttlMs: number,
      fields: Record<string, string | number>,
    ) {
      const pairs = Object.entries(fields).flatMap(([k, value]) => [k, String(value)]);
      return (await write(key, v, wake, ttlMs, ...pairs)) === 1;
    },
    refresh: async (leases: string, leaseMs: number, ids: string[]) => {
      await refresh(leases, leaseMs, ...ids);
    },
  };
}

/** The fields of a width's state as WRITE stores them (infinities as text, which Number reads back). */
export function stateFields(s: WidthState): Record<string, string | number> {
  return {
    width: s.width,
    credit: s.credit,
    probing: s.probing ? 1 : 0,
    lastDecrease: String(s.lastDecrease),
    refusedAt: String(s.refusedAt),
    holdUntil: s.holdUntil,
  };
}

/** The scripts' caller, as SharedWidth holds it. */
export type WidthScripts = ReturnType<typeof widthScripts>;
