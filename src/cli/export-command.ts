import { writeClaudePlugin } from '../mcp/claude-plugin.js';
import { EXIT } from './exit-codes.js';

/** The flags of `raymond export claude-plugin`. */
export interface ExportFlags {
  out: string;
  name?: string;
  command?: string;
  author?: string;
  wait?: number;
  budget?: number;
  force?: boolean;
}

/**
 * `raymond export claude-plugin WORKFLOW... --out DIR`: writes the plugin,
 * then says on stdout what it holds and how to load or install it;
 * warnings go to stderr.
 */
export async function exportClaudePlugin(workflows: string[], flags: ExportFlags): Promise<number> {
  const report = await writeClaudePlugin({ workflows, ...flags });
  for (const w of report.warnings) process.stderr.write(`raymond: warning: ${w}\n`);
  const lines = [
    `wrote the Claude Code plugin "${report.name}" to ${report.out} (${report.skills.length} workflow${report.skills.length === 1 ? '' : 's'})`,
    ...report.skills.map((s) => `  skill ${s.skill}  tool ${s.tool}  (${s.source})`),
    `try it:   claude --plugin-dir ${report.out}`,
    `install:  claude plugin install ${report.name} --marketplace ${report.out}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.completed;
}
