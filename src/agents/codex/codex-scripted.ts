import { OPENAI_RESPONSES } from '../openai-responses-api.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { STEP_HEADER, type ScriptedCall, type ScriptedSetup } from '../agent-backend.js';
import { codexRecordedTurns } from './codex-record.js';

/** The model a test's codex runs with unless the workflow names one; priced at gpt-5's rates. */
const TEST_MODEL = 'gpt-5';

/** The provider's key variable: codex sends it as the bearer token. */
const KEY_VAR = 'SCRIPTED_MODEL_KEY';

/** Single-quoted for a POSIX shell. */
const quoted = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * A file write or edit as one shell command (codex's only built-in way to
 * change a file that a model can be scripted to call as a function): node,
 * which runs Raymond and so is there, with the file and texts as JSON.
 */
function nodeCommand(script: string, args: unknown): string {
  return `node -e ${quoted(script)} ${quoted(JSON.stringify(args))}`;
}

const WRITE = 'const a=JSON.parse(process.argv[1]);require("fs").writeFileSync(a.path,a.content)';
const EDIT =
  'const fs=require("fs"),a=JSON.parse(process.argv[1]),t=fs.readFileSync(a.path,"utf8");' +
  'if(!t.includes(a.old)){console.error("old text not found in "+a.path);process.exit(1)}' +
  'fs.writeFileSync(a.path,t.replace(a.old,()=>a.new))';

function toolCalls(call: ScriptedCall, cwd: string) {
  const at = (path: string) => (isAbsolute(path) ? path : join(cwd, path));
  if ('tool' in call) return [{ name: call.tool, input: call.input }];
  const cmd =
    'bash' in call
      ? call.bash
      : 'write' in call
        ? nodeCommand(WRITE, { path: at(call.write.path), content: call.write.content })
        : nodeCommand(EDIT, { path: at(call.edit.path), old: call.edit.old, new: call.edit.new });
  return [{ name: 'exec_command', input: { cmd } }];
}

/**
 * A CODEX_HOME of the test's own whose only provider is the scripted model,
 * the step's ticket sent from RAYMOND_TEST_STEP in every request's header,
 * codex's own retries off (a test's failures are Raymond's to retry), and no
 * update check or analytics.
 */
function codexHome(scratch: string, url: string): string {
  const dir = join(scratch, 'codex-home');
  mkdirSync(dir, { recursive: true });
  const config = [
    'model_provider = "raymond-test"',
    `model = "${TEST_MODEL}"`,
    'check_for_update_on_startup = false',
    '[analytics]',
    'enabled = false',
    '[model_providers.raymond-test]',
    'name = "raymond test"',
    `base_url = "${url}/v1"`,
    `env_key = "${KEY_VAR}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'supports_websockets = false',
    `env_http_headers = { "${STEP_HEADER}" = "RAYMOND_TEST_STEP" }`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.toml'), config);
  return dir;
}

/** Codex under `raymond test`: shell commands are `exec_command` calls; writes and edits are commands too. */
export const CODEX_SCRIPTED: ScriptedSetup = {
  api: OPENAI_RESPONSES,
  toolCalls,
  recordTurns: codexRecordedTurns,
  environment: (scratch, url) => ({
    CODEX_HOME: codexHome(scratch, url),
    [KEY_VAR]: 'raymond-test',
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    CODEX_API_KEY: undefined,
  }),
};
