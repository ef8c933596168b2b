// Where `errata createuser` gets a password: typed at a hidden prompt (twice) on a terminal, or
// read from standard input with --password-stdin (scripts, secrets managers; once, hidden, when
// that input is a terminal). Never from an
// argument, which other users of the machine can read in the process list.
import { UserInputError } from '../core/errors.ts';

export async function readPassword(options: { stdin: boolean }): Promise<string> {
  // --password-stdin typed at a terminal: once, and not echoed (read to the end of input, the
  // terminal showed the password as it was typed and then waited for Ctrl-D).
  if (options.stdin) return process.stdin.isTTY ? promptHidden('Password: ') : readAllStdin();
  if (!process.stdin.isTTY) {
    throw new UserInputError('no terminal to ask for the password on: pipe it in with --password-stdin');
  }
  const first = await promptHidden('Password: ');
  const second = await promptHidden('Password (again): ');
  if (first !== second) throw new UserInputError('the two passwords differ: run the command again');
  return first;
}

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // `echo secret |` and files end with a newline that is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Reads a line with echo off; the prompt goes to stderr, as stdout is the command's output. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows, so nothing typed after it is ever echoed.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          finish();
          return resolve(value);
        }
        if (char === '\u0003' || char === '\u0004') {
          finish();
          return reject(new UserInputError('cancelled: no user was created'));
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}
