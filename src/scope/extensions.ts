/** The platform whose script extensions a scope resolves: the host's, or Windows for `--win`. */
export type ScriptPlatform = 'posix' | 'win32';

/** The platform Raymond runs on. */
export const HOST_PLATFORM: ScriptPlatform = process.platform === 'win32' ? 'win32' : 'posix';

/** Script extensions that run on a platform, in resolution order. */
export function scriptExtensions(platform: ScriptPlatform): readonly string[] {
  return platform === 'win32' ? ['.bat', '.ps1'] : ['.sh'];
}

/** Every extension a state file may have on a platform, markdown first. */
export function stateExtensions(platform: ScriptPlatform): readonly string[] {
  return ['.md', ...scriptExtensions(platform)];
}

/** Every extension a state file may have on this platform, markdown first. */
export const STATE_EXTENSIONS: readonly string[] = stateExtensions(HOST_PLATFORM);

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
