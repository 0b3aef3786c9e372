import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { RaymondError, errorMessage } from '../errors.js';
import {
  WORKFLOWS_FOLDER,
  marketplaceJson,
  mcpJson,
  pluginJson,
  pluginReadme,
  type PluginSpec,
} from './plugin-manifests.js';
import { MAX_FULL_TOOL_NAME, pluginToolName, skillMarkdown } from './plugin-skill.js';
import { checkOut, placePlugin } from './plugin-place.js';
import { copyWorkflows } from './plugin-workflows.js';
import { toolNamesOf } from './tool-names.js';

/** What `raymond export claude-plugin` was asked for. */
export interface ClaudePluginOptions {
  workflows: readonly string[];
  out: string;
  /** The plugin's name; default: the one workflow's id, else `raymond-workflows`. */
  name?: string;
  /** The raymond executable the MCP server runs (default `raymond`, from PATH). */
  command?: string;
  author?: string;
  /** Replace the plugin already in `out`. */
  force?: boolean;
  wait?: number;
  budget?: number;
}

/** What was written. */
export interface ClaudePluginReport {
  out: string;
  name: string;
  /** Each workflow's skill and the full name of its tool. */
  skills: Array<{ id: string; source: string; skill: string; tool: string }>;
  warnings: string[];
}

/** A plugin name Claude Code takes as it is, and that stays the same inside tool names. */
const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const DEFAULT_NAME = 'raymond-workflows';

function defaultName(ids: string[]): string {
  if (ids.length !== 1) return DEFAULT_NAME;
  const name = ids[0]!.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[_-]+|[_-]+$/g, '');
  return name === '' ? DEFAULT_NAME : name.slice(0, 64);
}

function defaultAuthor(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The command for `.mcp.json`: a path made absolute (the server starts in the session's folder), or a name on PATH. */
async function serverCommand(given: string, warnings: string[]): Promise<string> {
  if (/[/\\]/.test(given)) {
    const path = resolve(given);
    if (!(await isExecutable(path)))
      throw new RaymondError('ERR_USAGE', '--command: no such executable file', { file: given });
    return path;
  }
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  const found = await Promise.all(dirs.map((d) => isExecutable(join(d, given))));
  if (!found.includes(true))
    warnings.push(
      `"${given}" is not on PATH here: the plugin's MCP server starts only where it is (or give --command PATH)`,
    );
  return given;
}

/** Writes the plugin's files into `dir`, a new folder. */
async function writePlugin(dir: string, spec: PluginSpec): Promise<void> {
  await mkdir(join(dir, '.claude-plugin'));
  await writeFile(join(dir, '.claude-plugin', 'plugin.json'), pluginJson(spec));
  await writeFile(join(dir, '.claude-plugin', 'marketplace.json'), marketplaceJson(spec));
  await writeFile(join(dir, '.mcp.json'), mcpJson(spec));
  await writeFile(join(dir, 'README.md'), pluginReadme(spec));
  for (const { entry, tool } of spec.workflows) {
    await mkdir(join(dir, 'skills', tool), { recursive: true });
    await writeFile(join(dir, 'skills', tool, 'SKILL.md'), skillMarkdown(entry, spec.name, tool));
  }
}

/**
 * Writes a Claude Code plugin of the given workflows to `out`: its manifest
 * (and a one-plugin marketplace), a skill per workflow, the MCP server's
 * configuration (`raymond mcp` over the plugin's copy of the workflows) and
 * a README. The plugin is built in a temporary sibling of `out` and moved
 * into place (plugin-place.ts: with --force, over only the files an earlier
 * export wrote), so a failure while building leaves `out` as it was.
 */
export async function writeClaudePlugin(o: ClaudePluginOptions): Promise<ClaudePluginReport> {
  if (o.name !== undefined && !PLUGIN_NAME.test(o.name))
    throw new RaymondError(
      'ERR_USAGE',
      `--name ${JSON.stringify(o.name)}: a plugin name is letters, digits, - and _ (at most 64, starting with a letter or digit)`,
    );
  const warnings: string[] = [];
  const command = await serverCommand(o.command ?? 'raymond', warnings);
  const out = resolve(o.out);
  const existing = await checkOut(out, !!o.force);
  await mkdir(dirname(out), { recursive: true });
  const staging = await mkdtemp(join(dirname(out), `.${basename(out)}-`));
  try {
    const copied = await copyWorkflows(o.workflows, join(staging, WORKFLOWS_FOLDER), out);
    const tools = toolNamesOf(copied.map((w) => w.entry.id));
    const name = o.name ?? defaultName(copied.map((w) => w.entry.id));
    const workflows = copied
      .map((w) => ({ ...w, tool: tools.get(w.entry.id)! }))
      .sort((a, b) => a.tool.localeCompare(b.tool));
    await writePlugin(staging, {
      name,
      author: o.author ?? defaultAuthor(),
      command,
      ...(o.wait !== undefined ? { wait: o.wait } : {}),
      ...(o.budget !== undefined ? { budget: o.budget } : {}),
      workflows,
    });
    await placePlugin(staging, out, existing);
    const skills = workflows.map((w) => ({
      id: w.entry.id,
      source: w.source,
      skill: `${name}:${w.tool}`,
      tool: pluginToolName(name, w.tool),
    }));
    for (const s of skills)
      if (s.tool.length > MAX_FULL_TOOL_NAME)
        warnings.push(
          `the tool name ${s.tool} is ${s.tool.length} characters; model APIs take at most ${MAX_FULL_TOOL_NAME}: give a shorter --name`,
        );
    return { out, name, skills, warnings };
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    if (err instanceof RaymondError) throw err;
    throw new RaymondError('ERR_USAGE', `cannot write the plugin: ${errorMessage(err)}`, {
      file: out,
      cause: err,
    });
  }
}
