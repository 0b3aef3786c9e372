import { runLanguageTask, type LanguageTask } from './language-tasks.js';

/** Piscina entry point: one parsing or rendering task per call. */
export default function languageWorker(task: LanguageTask): ReturnType<typeof runLanguageTask> {
  return runLanguageTask(task);
}
