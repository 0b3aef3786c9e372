const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g;

/**
 * Replaces `{{name}}` placeholders. A name with no value stays exactly as
 * written, so a prompt can still talk about `{{something}}` literally.
 */
export function renderTemplate(template: string, variables: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(variables, name) ? variables[name]! : whole,
  );
}

/** The variables a state sees: fork attributes, then the built-ins, which win. */
export function templateVariables(opts: {
  workflowId: string;
  agentId: string;
  input: string | null;
  attributes: Record<string, string>;
  worktree?: { path?: string; branch: string };
  taskFolder?: string;
  /** `{{ask_id}}`: the ask an answer came to, in the state that answer led to. */
  askId?: string;
}): Record<string, string> {
  const vars: Record<string, string> = {
    ...opts.attributes,
    workflow_id: opts.workflowId,
    agent_id: opts.agentId,
  };
  if (opts.taskFolder !== undefined) vars.task_folder = opts.taskFolder;
  if (opts.askId !== undefined) vars.ask_id = opts.askId;
  if (opts.worktree) {
    vars.worktree = opts.worktree.path ?? '';
    vars.branch = opts.worktree.branch;
  }
  if (opts.input !== null) {
    vars.input = opts.input;
    vars.result = opts.input;
  }
  return vars;
}
