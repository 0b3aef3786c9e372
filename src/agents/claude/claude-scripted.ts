import { ANTHROPIC_MESSAGES } from '../anthropic-messages-api.js';
import { isAbsolute, join } from 'node:path';
import { STEP_HEADER, type ScriptedSetup } from '../agent-backend.js';

/**
 * Claude Code under `raymond test`: ANTHROPIC_BASE_URL is the scripted
 * model, the ticket travels in ANTHROPIC_CUSTOM_HEADERS, and every way to
 * another API (a token, Bedrock, Vertex, Foundry, another config folder) is
 * removed.
 */
export const CLAUDE_SCRIPTED: ScriptedSetup = {
  api: ANTHROPIC_MESSAGES,
  toolCalls(call, cwd) {
    const at = (path: string) => (isAbsolute(path) ? path : join(cwd, path));
    if ('tool' in call) return [{ name: call.tool, input: call.input }];
    if ('bash' in call) return [{ name: 'Bash', input: { command: call.bash } }];
    // Claude Code writes or edits only a file it has read in the session (a new file needs no read: the Read fails harmlessly).
    if ('write' in call) {
      const file = at(call.write.path);
      return [
        { name: 'Read', input: { file_path: file } },
        { name: 'Write', input: { file_path: file, content: call.write.content } },
      ];
    }
    const file = at(call.edit.path);
    return [
      { name: 'Read', input: { file_path: file } },
      {
        name: 'Edit',
        input: { file_path: file, old_string: call.edit.old, new_string: call.edit.new },
      },
    ];
  },
  environment: (_scratch, url) => ({
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'raymond-test',
    ANTHROPIC_AUTH_TOKEN: undefined,
    ANTHROPIC_MODEL: undefined,
    CLAUDE_CODE_USE_BEDROCK: undefined,
    CLAUDE_CODE_USE_VERTEX: undefined,
    CLAUDE_CODE_USE_FOUNDRY: undefined,
    CLAUDE_CONFIG_DIR: undefined,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // The test's home is a sandbox: Claude Code allows --dangerously-skip-permissions there, even as root.
    IS_SANDBOX: '1',
  }),
  stepEnvironment: (ticket) => ({ ANTHROPIC_CUSTOM_HEADERS: `${STEP_HEADER}: ${ticket}` }),
};
