import { RaymondError } from '../errors.js';
import { mcpServerMap, type Grant } from '../language/grant.js';
import { ContainedFileError, readContainedFile } from './contained-file.js';
import type { Scope } from './scope.js';
import { decodeUtf8 } from './utf8.js';

/**
 * A file named by a grant, relative to the workflow's folder (a YAML
 * workflow's folder, an archive's extraction folder): it must resolve
 * inside that folder, be a regular file, and be small (contained-file.ts),
 * so a workflow cannot send a file from elsewhere to the model, nor hang or
 * exhaust Raymond with a FIFO or `/dev/zero`.
 */
export async function readWorkflowFile(
  scope: Pick<Scope, 'folder'>,
  rel: string,
  key: string,
  where: string,
): Promise<string> {
  try {
    const bytes = await readContainedFile(scope.folder, rel);
    return decodeUtf8(bytes, rel);
  } catch (err) {
    const why =
      err instanceof ContainedFileError
        ? err.why
        : err instanceof RaymondError
          ? err.message
          : String(err);
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
  scope: Pick<Scope, 'folder'>,
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
