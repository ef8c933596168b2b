// What command groups registered outside main.ts get from it: the admin operation runner, output
// (for people, or JSON with --json). Links come from the operation's answer: the base URL of the
// server that ran it, not the command's own environment.
import type { AdminOperation } from '../runtime/admin/operations.ts';

export interface CliIo {
  admin(operation: AdminOperation, input: object): Promise<unknown>;
  out(line?: string): void;
  json(): boolean;
}
