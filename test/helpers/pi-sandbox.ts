import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ApiServer } from './api-server.js';
import { ROOT, Sandbox, type CliResult } from './cli.js';

/** pi's price of the scripted server's default turn (1,000 tokens in, 100 out) at the test model's $3 / $15 per million. */
export const PI_TURN_USD = 0.0045;
/** The same turn at `mock/mock-small`'s $1 / $5 per million. */
export const PI_SMALL_TURN_USD = 0.0015;

/**
 * A sandbox whose runs use the real `pi` (the devDependency, on PATH)
 * against the scripted Messages API server: a `PI_CODING_AGENT_DIR` of its
 * own holds a models.json whose only provider is that server, and pi runs
 * offline.
 */
export class PiSandbox extends Sandbox {
  readonly server = new ApiServer();
  readonly home = join(this.dir, '.home');
  readonly agentDir = join(this.dir, '.pi-agent');

  async start(): Promise<this> {
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.agentDir, { recursive: true });
    await this.server.start();
    const models = {
      providers: {
        mock: {
          baseUrl: this.server.url,
          api: 'anthropic-messages',
          apiKey: 'test-key',
          models: [
            {
              id: 'mock-model',
              name: 'Mock Model',
              reasoning: true,
              contextWindow: 200000,
              maxTokens: 8192,
              cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
            },
            // A cheaper model of the same provider: a fallback model (PI_SMALL_TURN_USD a turn).
            {
              id: 'mock-small',
              name: 'Mock Small',
              reasoning: false,
              contextWindow: 200000,
              maxTokens: 8192,
              cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
            },
          ],
        },
      },
    };
    writeFileSync(join(this.agentDir, 'models.json'), JSON.stringify(models));
    // One attempt per turn: Raymond's own retries are what is tested.
    writeFileSync(
      join(this.agentDir, 'settings.json'),
      JSON.stringify({ retry: { enabled: false } }),
    );
    return this;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      HOME: this.home,
      PI_CODING_AGENT_DIR: this.agentDir,
      PI_OFFLINE: '1',
      PI_SKIP_VERSION_CHECK: '1',
      PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`,
      ...extra,
    };
  }

  override run(args: string[], env?: Record<string, string>): Promise<CliResult> {
    return super.run(args, this.env(env));
  }

  async stop(): Promise<void> {
    await this.server.stop();
    this.remove();
  }
}
