/** Where progress goes: the CLI prints it, tests collect it. */
export interface Reporter {
  /** A state began running for an agent. */
  started(agentId: string, state: string): void;
  /** One line describing a completed step. */
  step(line: string): void;
  /** Text a state asked to show with `<print>`. */
  print(agentId: string, text: string): void;
  warn(text: string): void;
  /** Extra detail shown with --verbose. */
  debug(text: string): void;
}

/** A reporter that discards everything. */
export const silentReporter: Reporter = { started() {}, step() {}, print() {}, warn() {}, debug() {} };
