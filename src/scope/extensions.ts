/** Script extensions that run on this platform, in resolution order. */
export const SCRIPT_EXTENSIONS: readonly string[] = process.platform === 'win32' ? ['.bat', '.ps1'] : ['.sh'];

/** Every extension a state file may have on this platform, markdown first. */
export const STATE_EXTENSIONS: readonly string[] = ['.md', ...SCRIPT_EXTENSIONS];

/** Extensions that count as "explicit" in a target, on any platform. */
const ALL_EXTENSIONS = ['.md', '.sh', '.bat', '.ps1'];

/** The state extension a name carries, if any (case-sensitive, as file names are). */
export function extensionOf(name: string): string | undefined {
  return ALL_EXTENSIONS.find((ext) => name.endsWith(ext) && name.length > ext.length);
}

/** Whether a state file is a markdown prompt (else it is a script). */
export function isMarkdown(name: string): boolean {
  return name.endsWith('.md');
}
