import { readFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { RaymondError } from '../errors.js';
import { mcpServerMap, type Grant } from '../language/grant.js';
import type { Scope } from './scope.js';

/**
 * A file named by a grant, relative to the workflow: a YAML workflow's
 * folder, else read through the scope (a folder, a state file's folder, an
 * archive's extracted files).
 */
export async function readWorkflowFile(
  scope: Pick<Scope, 'ref' | 'readText'>,
  rel: string,
  key: string,
  where: string,
): Promise<string> {
  try {
    return scope.ref.kind === 'yaml'
      ? await readFile(resolvePath(dirname(scope.ref.path), rel), 'utf8')
      : await scope.readText(rel);
  } catch (err) {
    const code =
      err instanceof RaymondError
        ? err.message.replace(/^cannot read: /, '')
        : ((err as NodeJS.ErrnoException).code ?? String(err));
    const why = code === 'ENOENT' ? 'no such file' : code;
    throw new RaymondError(
      'ERR_GRANT',
      `${key}: cannot read "${rel}" (relative to the workflow): ${why}`,
      { file: where },
    );
  }
}

/** An MCP server file's servers, checked; every problem names the key and the file. */
export function parseMcpFile(text: string, rel: string, where: string): Record<string, unknown> {
  const fail = (message: string): never => {
    throw new RaymondError('ERR_GRANT', `mcp_servers file "${rel}": ${message}`, { file: where });
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return fail(`not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  return mcpServerMap(data, fail);
}

/**
 * What a run would find wrong with the files a grant names: an MCP server
 * file missing or malformed, a system prompt file missing. Read when the
 * graph is built, so the checks themselves stay synchronous.
 */
export async function grantFileProblems(
  scope: Pick<Scope, 'ref' | 'readText'>,
  grant: Grant,
  file: string,
): Promise<string[]> {
  const out: string[] = [];
  const attempt = async (read: () => Promise<unknown>) => {
    try {
      await read();
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      out.push(err.message);
    }
  };
  const servers = grant.mcpServers;
  if (typeof servers === 'string')
    await attempt(async () =>
      parseMcpFile(await readWorkflowFile(scope, servers, 'mcp_servers', file), servers, file),
    );
  const prompt = grant.appendSystemPrompt;
  if (prompt?.startsWith('@'))
    await attempt(() => readWorkflowFile(scope, prompt.slice(1), 'append_system_prompt', file));
  return out;
}
