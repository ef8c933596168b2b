// Runs a command at a pseudo-terminal (Python's standard `pty` module: Node has none), as a
// person at a terminal runs it, for what only a terminal shows: prompts, and what is echoed
// as it is typed. See run-in-pty.py.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './standalone-server.ts';
import { testPython } from './test-python.ts';

interface Answer {
  /** Typed once the terminal's output so far ends with this (trailing spaces aside); give each prompt once. */
  after: string;
  /** What is typed: end a line with \r, as the Enter key does. */
  type: string;
}

/** What the terminal showed (output and echo, with \r\n line ends), and the exit code. */
export function runAtTerminal(
  argv: string[],
  env: NodeJS.ProcessEnv,
  answers: Answer[],
): Promise<{ shown: string; code: number }> {
  const spec = { argv, env, answers, timeoutSeconds: 30 };
  return new Promise((resolve, reject) => {
    const child = spawn(testPython(), [join(REPO_ROOT, 'test', 'support', 'run-in-pty.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(JSON.stringify(spec));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    // 'close', not 'exit': the JSON is read whole only once the output has ended.
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`run-in-pty.py failed (${code}): ${stderr}`));
      else resolve(JSON.parse(stdout) as { shown: string; code: number });
    });
  });
}
