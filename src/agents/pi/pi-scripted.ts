import { ANTHROPIC_MESSAGES } from '../anthropic-messages-api.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { STEP_HEADER, type ScriptedSetup } from '../agent-backend.js';

/** pi's model for tests that name none: served by the scripted model, priced at $3 / $15 per million tokens in / out. */
const PI_TEST_MODEL = { provider: 'raymond-test', id: 'scripted' } as const;

/**
 * pi's own folder for a test: its only way to a model is the scripted one.
 * The test provider (and the built-in `anthropic` one, for workflows that
 * name its models) points at the server; each request carries the step's
 * ticket from RAYMOND_TEST_STEP, which pi reads for a header value.
 */
function piAgentDir(scratch: string, url: string): string {
  const dir = join(scratch, 'pi-agent');
  mkdirSync(dir, { recursive: true });
  const headers = { [STEP_HEADER]: 'RAYMOND_TEST_STEP' };
  const models = {
    providers: {
      [PI_TEST_MODEL.provider]: {
        baseUrl: url,
        api: 'anthropic-messages',
        apiKey: 'raymond-test',
        headers,
        models: [
          {
            id: PI_TEST_MODEL.id,
            name: 'Raymond test model',
            reasoning: true,
            contextWindow: 200000,
            maxTokens: 8192,
            cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          },
        ],
      },
      anthropic: { baseUrl: url, headers },
    },
  };
  writeFileSync(join(dir, 'models.json'), JSON.stringify(models, null, 2));
  // One attempt per turn, and the test model unless the workflow names another.
  writeFileSync(
    join(dir, 'settings.json'),
    JSON.stringify({
      defaultProvider: PI_TEST_MODEL.provider,
      defaultModel: PI_TEST_MODEL.id,
      retry: { enabled: false },
    }),
  );
  return dir;
}

/** pi under `raymond test`: an agent folder of the test's own whose models are the scripted one. */
export const PI_SCRIPTED: ScriptedSetup = {
  api: ANTHROPIC_MESSAGES,
  toolCalls(call, cwd) {
    const at = (path: string) => (isAbsolute(path) ? path : join(cwd, path));
    if ('tool' in call) return [{ name: call.tool, input: call.input }];
    if ('bash' in call) return [{ name: 'bash', input: { command: call.bash } }];
    if ('write' in call)
      return [{ name: 'write', input: { path: at(call.write.path), content: call.write.content } }];
    return [
      {
        name: 'edit',
        input: {
          path: at(call.edit.path),
          edits: [{ oldText: call.edit.old, newText: call.edit.new }],
        },
      },
    ];
  },
  environment: (scratch, url) => ({
    PI_CODING_AGENT_DIR: piAgentDir(scratch, url),
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
  }),
};
