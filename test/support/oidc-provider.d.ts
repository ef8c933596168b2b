// The little of oidc-provider's API the tests use (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): void;
    /** Koa middleware around the provider's own. */
    use(
      middleware: (
        ctx: { response: { get(field: string): string | undefined }; set(field: string, value: string): void },
        next: () => Promise<void>,
      ) => Promise<void>,
    ): void;
  }

  export type { Account };
}
