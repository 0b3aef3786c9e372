import type { TemplateFiles } from './template-parts.js';
import { forkJoin } from './fork-join-template.js';
import { reviewLoop } from './review-loop-template.js';
import { batchRefactor } from './batch-refactor-template.js';

/** The templates `raymond new --template` offers; the first is the default. */
export const TEMPLATE_NAMES = ['fork-join', 'review-loop', 'batch-refactor'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** The files of `template` for a workflow named `name`, with `cmd` (ray or raymond) in its README. */
export function templateFiles(template: TemplateName, name: string, cmd: string): TemplateFiles {
  if (template === 'review-loop') return reviewLoop(name, cmd);
  if (template === 'batch-refactor') return batchRefactor(name, cmd);
  return forkJoin(name, cmd);
}
