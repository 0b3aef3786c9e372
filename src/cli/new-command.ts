import { readdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { RaymondError } from '../errors.js';
import { makeFolders } from '../make-folders.js';
import { EXIT } from './exit-codes.js';
import { commandName } from './program-name.js';
import { templateFiles, type TemplateName } from './workflow-templates.js';

/** Why `folder` cannot take a new workflow, or undefined when it is missing or empty. */
async function occupied(folder: string): Promise<string | undefined> {
  const info = await stat(folder).catch(() => undefined);
  if (!info) return undefined;
  if (!info.isDirectory())
    return 'already exists and is not a folder: give the name of a new folder';
  return (await readdir(folder)).length > 0
    ? 'already exists and is not empty: give the name of a new folder'
    : undefined;
}

/**
 * `raymond new NAME [--template T]`: makes the folder NAME (or fills an
 * empty one) with the template's states and a README saying how to run it,
 * and prints what it made and the command that runs it. An existing file
 * or non-empty folder is refused before anything is written.
 */
export async function newCommand(name: string, template: TemplateName): Promise<number> {
  const why = await occupied(name);
  if (why) throw new RaymondError('ERR_USAGE', why, { file: name });
  const folder = resolve(name);
  const cmd = commandName();
  const files = templateFiles(template, basename(folder), cmd);
  await makeFolders(folder).catch((err: NodeJS.ErrnoException) => {
    throw new RaymondError('ERR_USAGE', `cannot make the folder: ${err.code ?? err.message}`, {
      file: name,
    });
  });
  for (const [file, text] of Object.entries(files)) {
    if (file.includes('/')) await makeFolders(join(folder, dirname(file)));
    await writeFile(join(folder, file), text, { mode: file.endsWith('.sh') ? 0o755 : 0o644 }).catch(
      (err: NodeJS.ErrnoException) => {
        throw new RaymondError('ERR_USAGE', `cannot write: ${err.code ?? err.message}`, {
          file: join(name, file),
        });
      },
    );
  }
  process.stdout.write(
    `made ${name} from the ${template} template: ${Object.keys(files).sort().join(', ')}\n`,
  );
  process.stdout.write(
    `check it with ${cmd} lint ${name}; how to run it is in ${join(name, 'README.md')}\n`,
  );
  return EXIT.completed;
}
