// A real OpenID Connect provider for the single sign-on tests: oidc-provider on 127.0.0.1, with
// one confidential client (Errata) and the test's accounts. Its own development login and
// consent pages are plain HTML forms the browser fills in: any password signs an account in.
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from './standalone-server.ts';

export interface TestAccount {
  email: string;
  /** Absent: the provider sends no email_verified claim (as Entra ID does). */
  email_verified?: boolean;
  name: string;
  groups: string[];
}

export interface OpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** While on, the provider's redirect back to a client changes one character of its state, as someone on the way might. */
  tamperWithState(on: boolean): void;
  close(): Promise<void>;
}

/** Starts the provider on `port` (a free one unless given: a test may point a client at it first). */
export async function startOpenIdProvider(
  accounts: Record<string, TestAccount>,
  redirectUris: string[],
  port?: number,
): Promise<OpenIdProvider> {
  port ??= await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'errata-test';
  const clientSecret = 'a-client-secret-that-must-never-show';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts[id];
      return account && { accountId: id, claims: () => ({ sub: id, ...account }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['errata-sso-test-cookie-key'] },
  });
  let tampering = false;
  provider.use(async (ctx, next) => {
    await next();
    const location = ctx.response.get('Location') ?? '';
    if (!tampering || !redirectUris.some((uri) => location.startsWith(`${uri}?`))) return;
    const url = new URL(location);
    const state = url.searchParams.get('state') ?? '';
    url.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    ctx.set('Location', url.href);
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    tamperWithState: (on) => {
      tampering = on;
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
