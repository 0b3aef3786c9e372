import {
  allBackends,
  backendChoices,
  RUN_EFFORTS,
  runModelProblem,
} from '../agents/registry/registry.js';
import { ON_DENIAL_MODES } from '../language/grant.js';
import { bool, listFromFlag, names, oneOf, refuse, setting } from '../setting.js';

/**
 * The run settings every backend's turns read (the help group Agent turns),
 * in the order the help, the config template and the reference show them
 * (RUN_SETTINGS merges them). A backend's own settings are its folder's
 * (AgentBackend.settings), asked of the registry.
 */
export const AGENT_TURN_SETTINGS = {
  model: setting({
    flag: '--model <model>',
    run: 'model',
    stored: 'model',
    nullable: true,
    scope: 'run',
    group: 'Agent turns',
    help: `model for markdown states whose frontmatter names none (each state's backend checks it): ${backendChoices('model')}`,
    doc: `Model for markdown states whose frontmatter names none (${backendChoices('model')}). Each state's backend checks it.`,
    example: '"sonnet"',
    defaultText: "the backend's own",
    suggestions: () => [...new Set(allBackends().flatMap((b) => b.models))],
    check: (v) => {
      if (typeof v !== 'string') return refuse('expected a model name');
      const problem = runModelProblem(v);
      return problem === undefined ? v : refuse(problem);
    },
  }),
  fallback_models: setting({
    flag: '--fallback-models <models>',
    run: 'fallbackModels',
    stored: 'fallback_models',
    scope: 'run',
    group: 'Agent turns',
    help: "models a markdown turn goes on with, in order, when its model is overloaded or unavailable (comma-separated; a state's fallback_models: wins)",
    doc: "Models a markdown turn goes on with, in order, when its model is overloaded (529) or unavailable, for states whose frontmatter names none. Each state's backend checks them.",
    example: '["sonnet", "haiku"]',
    defaultText: 'none',
    suggestions: () => [...new Set(allBackends().flatMap((b) => b.models))],
    fromFlag: listFromFlag,
    check: (v) => {
      const models = names('a list of model names')(v);
      for (const m of models) {
        const problem = runModelProblem(m);
        if (problem !== undefined) refuse(problem);
      }
      return models;
    },
  }),
  effort: setting({
    flag: '--effort <level>',
    run: 'effort',
    stored: 'effort',
    nullable: true,
    scope: 'run',
    group: 'Agent turns',
    help: `effort for markdown states whose frontmatter names none (each state's backend checks it): ${backendChoices('effort')}`,
    doc: `Effort for markdown states whose frontmatter names none (${backendChoices('effort')}). Each state's backend checks it.`,
    example: '"medium"',
    defaultText: "the backend's own",
    choices: RUN_EFFORTS,
    check: oneOf(RUN_EFFORTS),
  }),
  dangerously_skip_permissions: setting({
    flag: '--dangerously-skip-permissions',
    run: 'skipPermissions',
    stored: 'dangerously_skip_permissions',
    scope: 'run',
    group: 'Agent turns',
    help: 'let the agent CLI run any tool without asking (Codex: its full-access sandbox; trusted workflows only)',
    doc: 'Let the agent CLI run any tool without asking (Codex: no sandbox). Trusted workflows only.',
    example: 'false',
    defaultText: 'false',
    check: bool,
    initial: () => false,
  }),
  tools: setting({
    scope: 'process',
    group: 'Agent turns',
    help: '',
    doc: 'The only built-in tools a markdown state has, unless its workflow or frontmatter says (Claude Code: --tools; pi: --tools). [] gives none.',
    example: '["Read", "Grep", "Glob"]',
    defaultText: 'every built-in tool',
    check: names('a list of tool names'),
  }),
  allowed_tools: setting({
    scope: 'process',
    group: 'Agent turns',
    help: '',
    doc: 'Tools or patterns a markdown state may use without asking, unless its workflow or frontmatter says (Claude Code: --allowedTools).',
    example: '["Bash(git status:*)"]',
    defaultText: '',
    check: names('a list of tools or patterns'),
  }),
  on_denial: setting({
    scope: 'process',
    group: 'Agent turns',
    help: '',
    doc: 'What a tool call the state may not make does: "warn" shows it and counts it, "fail" fails the step (and so the agent).',
    example: '"warn"',
    defaultText: 'warn',
    check: oneOf(ON_DENIAL_MODES),
  }),
};
