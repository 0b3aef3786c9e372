import type { CompletionCommand, CompletionOption } from './completion-model.js';

/** The shells `raymond completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A word in single quotes for bash, zsh and fish alike (fish also needs its backslashes doubled). */
function quote(text: string, fish = false): string {
  const inner = fish
    ? text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")
    : text.replace(/'/g, `'\\''`);
  return `'${inner}'`;
}

/** `key>word` patterns of a case statement, as the scanning loop sees the words (one per line). */
function casePatterns(items: string[]): string {
  return items.map((i) => `"${i}"`).join('|');
}

/** Every `key>flag` of an option that takes a value, and of each subcommand: what the scanning loop needs. */
function scanTables(model: CompletionCommand[]) {
  const enter = model.flatMap((c) => c.subcommands.map((s) => `${c.key}>${s.name}`));
  const valued = model.flatMap((c) =>
    c.options.filter((o) => o.value !== 'none').flatMap((o) => o.flags.map((f) => `${c.key}>${f}`)),
  );
  return { enter, valued };
}

/** The option values a command completes after `prev`: one case per option that takes a value. */
function valueCases(model: CompletionCommand[], render: (o: CompletionOption) => string): string[] {
  return model.flatMap((c) =>
    c.options
      .filter((o) => o.value !== 'none')
      .map((o) => `    ${casePatterns(o.flags.map((f) => `${c.key}>${f}`))}) ${render(o)} ;;`),
  );
}

function header(shell: Shell, name: string, load: string): string {
  return [
    `# ${shell} completion for raymond and ray, written by \`${name} completion ${shell}\`.`,
    `# ${load}`,
    '# It is made from the commands and options of the Raymond that wrote it: write it again after an upgrade.',
  ].join('\n');
}

/** The bash script: a `_raymond` function for `complete -F`, for both names. */
export function bashScript(model: CompletionCommand[], name: string): string {
  const { enter, valued } = scanTables(model);
  const words = (list: string[]) => `$'${list.join('\\n').replace(/'/g, "\\'")}'`;
  const value = (option: CompletionOption): string => {
    if (option.value === 'choices')
      return `COMPREPLY=($(compgen -W ${words(option.choices)} -- "$cur")); return`;
    if (option.value === 'dir')
      return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); return';
    if (option.value === 'file')
      return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return';
    return 'COMPREPLY=(); return';
  };
  const commands = model.map(
    (c) =>
      `    "${c.key}") opts=${words(c.options.flatMap((o) => o.flags))}; words=${words([...c.subcommands.map((s) => s.name), ...c.words])}; files=${c.files ? 1 : ''} ;;`,
  );
  return [
    header(
      'bash',
      name,
      `This shell: source <(${name} completion bash). For good: add that line to ~/.bashrc.`,
    ),
    '_raymond() {',
    "  local IFS=$'\\n' cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd='' w i skip='' opts words files",
    '  # bash splits --option=value at the "=".',
    '  if [[ $cur == "=" ]]; then cur=""; elif [[ $prev == "=" ]]; then prev="${COMP_WORDS[COMP_CWORD-2]}"; fi',
    '  # Which (sub)command the words so far name; an option value is skipped, a workflow path ends the search.',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    w="${COMP_WORDS[i]}"',
    '    if [[ $w == "=" ]]; then skip=1; continue; fi',
    '    if [[ -n $skip ]]; then skip=""; continue; fi',
    '    case "$cmd>$w" in',
    `      ${casePatterns(enter)}) cmd="\${cmd:+$cmd:}$w" ;;`,
    `      ${casePatterns(valued)}) skip=1 ;;`,
    '      *">-"*) ;;',
    '      *) break ;;',
    '    esac',
    '  done',
    '  case "$cmd>$prev" in',
    ...valueCases(model, value),
    '  esac',
    '  case "$cmd" in',
    ...commands,
    '  esac',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '  if [[ -n $files ]]; then compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$cur")); fi',
    '}',
    'complete -F _raymond raymond ray',
    '',
  ].join('\n');
}

/** `name:summary` items for zsh's `_describe`. */
function described(items: { name: string; summary: string }[]): string {
  return items.map((i) => quote(`${i.name.replace(/:/g, '\\:')}:${i.summary}`)).join(' ');
}

/** The zsh script: autoloaded from $fpath (as `_raymond`) or sourced after compinit. */
export function zshScript(model: CompletionCommand[], name: string): string {
  const { enter, valued } = scanTables(model);
  const value = (option: CompletionOption): string => {
    if (option.value === 'choices')
      return `compadd -- ${option.choices.map((c) => quote(c)).join(' ')}; return`;
    if (option.value === 'dir') return '_files -/; return';
    if (option.value === 'file') return '_files; return';
    return `_message ${quote(option.summary || 'a value')}; return`;
  };
  const commands = model.map((c) => {
    const opts = described(
      c.options.flatMap((o) => o.flags.map((f) => ({ name: f, summary: o.summary }))),
    );
    const subs = described([...c.subcommands, ...c.words.map((w) => ({ name: w, summary: '' }))]);
    return `    ("${c.key}") opts=(${opts}); subs=(${subs}); files=${c.files ? 1 : "''"} ;;`;
  });
  return [
    '#compdef raymond ray',
    header(
      'zsh',
      name,
      `This shell (after compinit): source <(${name} completion zsh). For good: ${name} completion zsh > "\${fpath[1]}/_raymond".`,
    ),
    '_raymond() {',
    "  local cmd='' w i skip='' files cur=${words[CURRENT]} prev=${words[CURRENT-1]}",
    '  local -a opts subs',
    '  # Which (sub)command the words so far name; an option value is skipped, a workflow path ends the search.',
    '  for (( i = 2; i < CURRENT; i++ )); do',
    '    w=${words[i]}',
    "    if [[ -n $skip ]]; then skip=''; continue; fi",
    '    case "$cmd>$w" in',
    `      (${casePatterns(enter)}) cmd="\${cmd:+$cmd:}$w" ;;`,
    `      (${casePatterns(valued)}) skip=1 ;;`,
    '      (*">-"*) ;;',
    '      (*) break ;;',
    '    esac',
    '  done',
    '  case "$cmd>$prev" in',
    ...valueCases(model, value).map((line) => line.replace(/^ {4}/, '    (')),
    '  esac',
    '  case "$cmd" in',
    ...commands,
    '  esac',
    '  if [[ $cur == -* ]]; then _describe -t options option opts; return; fi',
    '  (( ${#subs} )) && _describe -t commands command subs',
    '  [[ -n $files ]] && _files',
    '  return 0',
    '}',
    'if [[ ${funcstack[1]} == _raymond ]]; then _raymond "$@"; else compdef _raymond raymond ray; fi',
    '',
  ].join('\n');
}

/** The fish script: `complete` lines for raymond, which ray wraps. */
export function fishScript(model: CompletionCommand[], name: string): string {
  const { enter, valued } = scanTables(model);
  const when = (key: string) => `-n ${quote(`__raymond_is ${quote(key, true)}`, true)}`;
  const optionLine = (key: string, option: CompletionOption): string => {
    const flags = option.flags
      .map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`))
      .join(' ');
    const value =
      option.value === 'choices'
        ? `-x -a ${quote(option.choices.join(' '), true)}`
        : option.value === 'dir'
          ? "-x -a '(__fish_complete_directories)'"
          : option.value === 'file'
            ? '-r -F'
            : option.value === 'text'
              ? '-x'
              : '';
    return ['complete -c raymond', when(key), flags, value, `-d ${quote(option.summary, true)}`]
      .filter(Boolean)
      .join(' ');
  };
  const lines = model.flatMap((c) => [
    ...(c.files ? [] : [`complete -c raymond ${when(c.key)} -f`]),
    ...c.subcommands.map(
      (s) =>
        `complete -c raymond ${when(c.key)} -a ${quote(s.name, true)} -d ${quote(s.summary, true)}`,
    ),
    ...c.words.map((w) => `complete -c raymond ${when(c.key)} -a ${quote(w, true)}`),
    ...c.options.map((o) => optionLine(c.key, o)),
  ]);
  return [
    header(
      'fish',
      name,
      `This shell: ${name} completion fish | source. For good: ${name} completion fish > ~/.config/fish/completions/raymond.fish (and the same for ray.fish).`,
    ),
    '# Which (sub)command the words so far name; an option value is skipped, a workflow path ends the search.',
    'function __raymond_command',
    '    set -l cmd ""',
    '    set -l skip 0',
    '    for w in (commandline -opc)[2..-1]',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch "$cmd>$w"',
    `            case ${enter.map((e) => quote(e, true)).join(' ')}`,
    '                if test -n "$cmd"; set cmd "$cmd:$w"; else; set cmd $w; end',
    `            case ${valued.map((v) => quote(v, true)).join(' ')}`,
    '                set skip 1',
    "            case '*>-*'",
    "            case '*'",
    '                break',
    '        end',
    '    end',
    '    echo $cmd',
    'end',
    'function __raymond_is',
    '    set -l cmd (__raymond_command)',
    '    test "$cmd" = "$argv[1]"',
    'end',
    ...lines,
    'complete -c ray -w raymond',
    '',
  ].join('\n');
}
