// What command groups registered outside main.ts get from it: the admin operation runner, output
// (for people, or JSON with --json) and the configured base URL.
import type { AdminOperation } from '../runtime/admin/operations.ts';

export interface CliIo {
  admin(operation: AdminOperation, input: object): Promise<unknown>;
  out(line?: string): void;
  json(): boolean;
  baseUrl(): string;
}
