import { readFileSync } from 'node:fs';
import type { Command, Help, Option } from 'commander';
import { ERROR_CODE_ALIASES, RaymondError, type ErrorCode } from '../errors.js';
import { helpGroups, settingEntries } from '../settings/setting-values.js';
import { ENVIRONMENT } from './environment-variables.js';
import { EXIT, EXIT_MEANINGS } from './exit-codes.js';
import { buildProgram } from './program.js';

/** The command that writes the pages, named in each page and in the staleness test. */
export const REGENERATE = 'npm run docs:reference';

const GENERATED = `<!-- Generated from the code by \`${REGENERATE}\`: edit the code, not this page. -->`;

/** Prose in a cell: `<ask>` is shown, not read as HTML. */
function prose(text: string): string {
  // Inside a code span markdown shows `&lt;` as written, so only the text between spans is escaped.
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;')))
    .join('');
}

/** A table cell: one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(head: string[], rows: string[][]): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

/** Every command, the root first, each with its subcommands after it. */
function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.filter((c) => c.name() !== 'help').flatMap(commandsOf)];
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** One command's section: usage, description, arguments, and its options by help group. */
function commandSection(command: Command, help: Help): string[] {
  const lines = [
    `## ${commandPath(command)}`,
    '',
    prose(command.description()),
    '',
    '```',
    `${commandPath(command)} ${command.usage()}`,
    '```',
  ];
  const args = help.visibleArguments(command);
  if (args.length > 0)
    lines.push(
      '',
      ...table(
        ['Argument', 'Meaning'],
        args.map((a) => [`\`${a.name()}\``, prose(help.argumentDescription(a))]),
      ),
    );
  const groups = new Map<string, Option[]>();
  for (const option of help.visibleOptions(command)) {
    const heading = (option.helpGroupHeading ?? 'Options:').replace(/:$/, '');
    groups.set(heading, [...(groups.get(heading) ?? []), option]);
  }
  for (const [heading, options] of groups) {
    lines.push(
      '',
      `### ${heading}`,
      '',
      ...table(
        ['Option', 'Meaning'],
        options.map((o) => [`\`${o.flags}\``, prose(help.optionDescription(o))]),
      ),
    );
  }
  return [...lines, ''];
}

/** docs/reference/cli.md: every command and option of the commander program. */
function cliPage(): string {
  const program = buildProgram({ exitCode: 0 });
  const help = program.createHelp();
  const commands = commandsOf(program);
  const lines = [
    '# Command-line reference',
    '',
    GENERATED,
    '',
    'Every command and its options, as `raymond --help` and `raymond help COMMAND` show them.',
    'The run settings among the options can also be set in `.raymond/config.toml` (see [configuration](configuration.md)).',
    '',
  ];
  lines.push(
    ...commands.slice(1).map((c) => `- [${commandPath(c)}](#${commandPath(c).replace(/ /g, '-')})`),
    '',
  );
  for (const command of commands) lines.push(...commandSection(command, help));
  return lines.join('\n');
}

/** docs/reference/configuration.md: the settings table, then the config keys that are no run settings. */
function configurationPage(): string {
  const lines = [
    '# Configuration reference',
    '',
    GENERATED,
    '',
    "`.raymond/config.toml` (the nearest `.raymond` folder upward, not past the repository's top) sets the defaults of a project's runs. A flag beats the config file, which beats the built-in default. `raymond --init-config` writes a template with every key commented out.",
    '',
    "A resume takes the run's stored settings back from its state file (flags given again replace them); the others are each process's own and come from its flags and config again.",
    '',
  ];
  for (const group of helpGroups()) {
    const rows = settingEntries()
      .filter(([, s]) => s.group === group)
      .map(([key, s]) => [
        `\`${key.startsWith('queue.') ? `[raymond.queue] ${key.slice('queue.'.length)}` : key}\``,
        s.flag ? `\`${s.flag}\`` : '',
        s.defaultText === '' ? '' : `\`${s.defaultText}\``,
        s.stored ? `\`${s.stored}\`` : s.scope === 'process' ? "no: each process's own" : 'no',
        prose(s.doc),
      ]);
    if (rows.length > 0)
      lines.push(
        `## ${group}`,
        '',
        ...table(['Key', 'Flag', 'Default', 'In the state file', 'Meaning'], rows),
        '',
      );
  }
  lines.push(
    '## `[raymond.serve]`',
    '',
    'The defaults of `raymond serve` (its flags beat them): `roots`, `port`, `host`, `workdir`, `launch`, `upload_max_size`, `upload_max_total_size`, `upload_max_count`, `request_timeout`, `mcp_wait`. See [the command-line reference](cli.md#raymond-serve).',
    '',
  );
  return lines.join('\n');
}

/** The error codes of src/errors.ts, with their comments, read from its source (the union is a type). */
function errorCodes(): Array<{ code: ErrorCode; comment: string }> {
  const source = readFileSync(new URL('../errors.ts', import.meta.url), 'utf8');
  const union = source.slice(
    source.indexOf('export type ErrorCode'),
    source.indexOf(';', source.indexOf('export type ErrorCode')),
  );
  return [...union.matchAll(/(?:\/\*\*([\s\S]*?)\*\/\s*)?\|\s*'(ERR_[A-Z_]+)'/g)].map((m) => ({
    code: m[2] as ErrorCode,
    comment: (m[1] ?? '').replace(/\s*\n\s*\*\s?/g, ' ').trim(),
  }));
}

/** docs/reference/exit-codes.md: the exit codes, then each error code with the exit code it ends a command with. */
function exitCodesPage(): string {
  const exit = { invalid: EXIT.invalid, transient: EXIT.transient, failed: EXIT.failed };
  const codes = Object.entries(EXIT).sort(([, a], [, b]) => a - b) as Array<
    [keyof typeof EXIT, number]
  >;
  return [
    '# Exit codes and error codes',
    '',
    GENERATED,
    '',
    ...table(
      ['Exit code', 'Meaning'],
      codes.map(([name, code]) => [String(code), prose(EXIT_MEANINGS[name])]),
    ),
    '',
    '## Error codes',
    '',
    'Every error has a permanent code: with `--json` it is the `code` of the JSON on stdout. A command that fails with one exits with the code shown.',
    '',
    ...table(
      ['Code', 'Exit code', 'Note'],
      errorCodes().map(({ code, comment }) => [
        `\`${code}\``,
        String(exit[new RaymondError(code, '').kind]),
        prose(comment),
      ]),
    ),
    '',
    '### Aliases',
    '',
    'Codes renamed keep their old names as aliases: an error read back under an old name (from an older Raymond) is its new code, and JSON a script reads gives the old names beside the code (`"aliases": [...]`).',
    '',
    ...table(
      ['Old name', 'Now'],
      Object.entries(ERROR_CODE_ALIASES).map(([old, now]) => [`\`${old}\``, `\`${now}\``]),
    ),
    '',
  ].join('\n');
}

/** docs/reference/environment.md: the variables Raymond reads, and those it gives scripts and hooks. */
function environmentPage(): string {
  const section = (title: string, use: string) => [
    `## ${title}`,
    '',
    ...table(
      ['Variable', 'Meaning'],
      ENVIRONMENT.filter((v) => v.use === use).map((v) => [
        v.name
          .split(', ')
          .map((n) => `\`${n}\``)
          .join(', '),
        prose(v.meaning),
      ]),
    ),
    '',
  ];
  return [
    '# Environment variables',
    '',
    GENERATED,
    '',
    ...section('Read by Raymond', 'read'),
    ...section('Given to scripts', 'scripts'),
    ...section("Given to the tools of markdown states' turns", 'turns'),
    ...section('Given to notification commands', 'hooks'),
    ...section('Given to the agent CLIs of raymond test', 'tests'),
  ].join('\n');
}

/** The generated pages, by path from the repository's top. */
export function referencePages(): Record<string, string> {
  return {
    'docs/reference/cli.md': cliPage(),
    'docs/reference/configuration.md': configurationPage(),
    'docs/reference/exit-codes.md': exitCodesPage(),
    'docs/reference/environment.md': environmentPage(),
  };
}
