import { ApiGate, type SharedPace } from './api-gate.js';
import { gateEnv } from './gate-env.js';
import { GATE_TUNING, type GateTuning } from './gate-rules.js';

/** A model API a gate may stand in front of: the variable the CLI reads its base URL from, and that URL. */
export interface GatedApi {
  variable: string;
  baseUrl: string;
  /** Variables the CLI needs to behave behind the gate as it would without it. */
  env?: Readonly<Record<string, string>>;
}

/**
 * The request gates of one process, one per account (account-key.ts): every
 * run of the process (a `raymond serve`'s, a queue worker's jobs) sends an
 * account's model requests through the same gate, so together they keep
 * to its rate. A gate opens on its first turn and lives with the process.
 */
export class ApiGates {
  private readonly gates = new Map<string, Promise<ApiGate>>();

  constructor(
    private readonly tuning: GateTuning = GATE_TUNING,
    /** An account's pace shared with other processes (queue workers'), if any. */
    private readonly sharedOf?: (account: string) => SharedPace,
  ) {}

  /** The gate of `account` in front of `api`; `opened` is called once, when it is open. */
  of(account: string, api: GatedApi, opened?: (gate: ApiGate) => void): Promise<ApiGate> {
    let gate = this.gates.get(account);
    if (!gate) {
      gate = ApiGate.open(api.baseUrl, this.tuning, Date.now, this.sharedOf?.(account)).then(
        (g) => {
          opened?.(g);
          return g;
        },
      );
      // A gate that could not open is tried again by the next turn.
      gate.catch(() => this.gates.delete(account));
      this.gates.set(account, gate);
    }
    return gate;
  }

  /** The variables a turn of `account` runs with (run with `env`): its gate's address. */
  async env(
    account: string,
    api: GatedApi,
    env: Readonly<Record<string, string | undefined>>,
    opened?: (gate: ApiGate) => void,
  ): Promise<Record<string, string>> {
    return { ...api.env, ...gateEnv(api.variable, (await this.of(account, api, opened)).url, env) };
  }
}
