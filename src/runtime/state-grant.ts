import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { RaymondError } from '../errors.js';
import type { ResolvedGrant } from '../executors/resolved-grant.js';
import { isEmptyGrant, overGrant, type Grant } from '../language/grant.js';
import { parseMcpFile, readWorkflowFile } from '../scope/grant-files.js';
import type { Scope } from '../scope/scope.js';

/**
 * The grant a state runs with: the config's defaults, under the workflow's
 * (`workflow.yaml`, a YAML workflow's top), under the state's own.
 */
export function layeredGrant(
  config: Grant | undefined,
  workflow: Grant | undefined,
  state: Grant | undefined,
): Grant {
  return [config, workflow, state].reduce<Grant>((out, g) => (g ? overGrant(out, g) : out), {});
}

/**
 * Reads what a grant names (its MCP file, its `@FILE` system prompt) and
 * resolves its `add_dirs` against the agent's directory, each of which must
 * be a directory, as `cd` must. Undefined for an empty grant.
 * @throws RaymondError ERR_GRANT naming the state file (`where`).
 */
export async function resolveGrant(
  grant: Grant,
  scope: Pick<Scope, 'folder'>,
  cwd: string,
  where: string,
): Promise<ResolvedGrant | undefined> {
  const { onDenial: _, ...rest } = grant;
  if (isEmptyGrant(rest)) return undefined;
  const out: ResolvedGrant = {
    tools: grant.tools,
    allowedTools: grant.allowedTools,
    disallowedTools: grant.disallowedTools,
    mcpInherit: grant.mcpInherit,
    permissionMode: grant.permissionMode,
  };
  const servers = grant.mcpServers;
  if (typeof servers === 'string')
    out.mcpConfig = JSON.stringify({
      mcpServers: parseMcpFile(
        await readWorkflowFile(scope, servers, 'mcp_servers', where),
        servers,
        where,
      ),
    });
  else if (servers) out.mcpConfig = JSON.stringify({ mcpServers: servers });
  const prompt = grant.appendSystemPrompt;
  if (prompt !== undefined)
    out.appendSystemPrompt = prompt.startsWith('@')
      ? await readWorkflowFile(scope, prompt.slice(1), 'append_system_prompt', where)
      : prompt;
  if (grant.addDirs) {
    out.addDirs = await Promise.all(
      grant.addDirs.map(async (d) => {
        const dir = resolvePath(cwd, d);
        if (!(await stat(dir).catch(() => undefined))?.isDirectory())
          throw new RaymondError(
            'ERR_GRANT',
            `add_dirs: "${d}" is not a directory (resolved to ${dir})`,
            { file: where },
          );
        return dir;
      }),
    );
  }
  return out;
}
