// A server's structured log, as the suites read it from its output: the JSON lines whose message
// is `msg`, parsed (other output, such as the CLI hints a start prints, is left out).

/** The log records in `output` whose message is `msg`. */
export function logLines(output: string, msg: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}
