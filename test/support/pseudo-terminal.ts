// Runs a command at a pseudo-terminal (Python's standard `pty` module: Node has none), as a
// person at a terminal runs it, for what only a terminal shows: prompts, and what is echoed
// as it is typed. See run-in-pty.py.
import { join } from 'node:path';
import { REPO_ROOT, runProcess } from './standalone-server.ts';

interface Answer {
  /** Typed once the terminal's output so far ends with this (trailing spaces aside). */
  after: string;
  /** What is typed: end a line with \r, as the Enter key does. */
  type: string;
}

/** What the terminal showed (output and echo, with \r\n line ends), and the exit code. */
export async function runAtTerminal(
  argv: string[],
  env: NodeJS.ProcessEnv,
  answers: Answer[],
): Promise<{ shown: string; code: number }> {
  const spec = { argv, env, answers, timeoutSeconds: 30 };
  const result = await runProcess('python3', [join(REPO_ROOT, 'test', 'support', 'run-in-pty.py')], {
    input: JSON.stringify(spec),
  });
  if (result.code !== 0) throw new Error(`run-in-pty.py failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as { shown: string; code: number };
}
