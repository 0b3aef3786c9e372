import { Type as T, type Static } from '@sinclair/typebox';
import { checked } from '../schema-problem.js';

/**
 * What travels through Redis between a run and its workers, as schemas: a
 * signed job's envelope, the payloads inside it, a worker's heartbeat and a
 * workflow folder's manifest. The HMAC proves who wrote a payload; these
 * prove it has the fields the reader goes on to use (a worker of another
 * version, or a hand-written key, is refused in one line, not by a
 * TypeError deep in a step).
 */

/** What goes into Redis for a job: the payload as JSON text, and its HMAC. */
export const signedJob = checked(T.Object({ payload: T.String(), sig: T.String() }));
/** A signed job or result as stored. */
export type SignedJob = Static<typeof signedJob.schema>;

/**
 * The fields of a step job the coordinator and the workers read before
 * running it; the rest (the agent's fields, the grant, the session plan) is
 * the coordinator's own data handed back, signed whole.
 */
export const stepJobEnvelope = checked(
  T.Object({
    v: T.Literal(4),
    kind: T.Union([T.Literal('script'), T.Literal('markdown'), T.Literal('worktree.finish')]),
    run: T.String(),
    id: T.String(),
    nonce: T.String(),
    expires: T.Number(),
    root: T.String(),
    agent: T.Object({ id: T.String(), state: T.String(), cwd: T.String() }),
    file: T.String(),
    where: T.String(),
    timeoutMs: T.Number(),
    env: T.Record(T.String(), T.String(), { must: 'an object of strings' }),
    stepEnv: T.Optional(T.Record(T.String(), T.String(), { must: 'an object of strings' })),
    makeTaskFolder: T.Optional(T.Boolean()),
    pushRemote: T.String(),
    queuedAt: T.Number(),
  }),
);

/** A worker's signed answer: its result, bound to the job (id and nonce) it answers. */
export const signedResult = checked(
  T.Object({
    for: T.Literal('result'),
    id: T.String(),
    nonce: T.String(),
    result: T.Object({ worker: T.String() }),
  }),
);

/** A batch of events a worker forwards while a job runs, bound to the job. */
export const signedProgress = checked(
  T.Object({
    for: T.Literal('progress'),
    id: T.String(),
    nonce: T.String(),
    events: T.Array(T.Unknown()),
    spentUsd: T.Optional(T.Number()),
  }),
);

/** What a worker says of itself with each heartbeat. */
export const workerBeatSchema = checked(
  T.Object({
    name: T.String(),
    host: T.String(),
    pid: T.Number(),
    concurrency: T.Number(),
    /** Steps it runs now, and how many it finished and failed since it started. */
    active: T.Number(),
    /** Jobs it took that wait: turns for their account's width (holding none of its places), others for a place. */
    waiting: T.Optional(T.Number()),
    done: T.Number(),
    failed: T.Number(),
    startedAt: T.Number(),
    /** When it last said so (epoch ms). */
    beatAt: T.Number(),
    /** The MAC of a fixed text under its secret (job-signing.ts `secretCheck`): whether a run shares its secret. */
    check: T.Optional(T.String()),
  }),
);
/** A worker's heartbeat, as stored under `raymond:workers`. */
export type WorkerBeat = Static<typeof workerBeatSchema.schema>;

/** A session the coordinator says will not go on soon (step-job.ts `endedKey`). */
export const endedSession = checked(T.Object({ run: T.String(), session: T.String() }));

/** A workflow folder as sent to workers: each file's blob hash and whether it is executable. */
export const folderManifest = checked(
  T.Object({
    files: T.Record(
      T.String(),
      T.Object(
        { sha: T.String({ pattern: '^[0-9a-f]{64}$' }), exec: T.Boolean() },
        { opaque: true, must: 'a file ({sha, exec})' },
      ),
      { must: 'an object of files' },
    ),
  }),
);
/** A workflow folder's manifest. */
export type FolderManifest = Static<typeof folderManifest.schema>;
