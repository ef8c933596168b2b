// The port against a real OpenID provider (oidc-provider on 127.0.0.1, test/support): what a
// sign-in meets when the provider is not reachable yet, and the next sign-in once it is.
import { afterAll, describe, expect, it } from 'vitest';
import { startOpenIdProvider, type OpenIdProvider } from '../../../test/support/openid-provider.ts';
import { freePort } from '../../../test/support/standalone-server.ts';
import { CALLBACK_PATH, openidProvider } from './openid-client-port.ts';

const BASE_URL = 'http://127.0.0.1:3999';
const CHECKS = { state: 's'.repeat(43), nonce: 'n'.repeat(43), verifier: 'v'.repeat(43) };
let provider: OpenIdProvider | undefined;
afterAll(() => provider?.close());

describe('openidProvider', () => {
  it('fails a sign-in while the provider is unreachable, and discovers it at the next one', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const oidc = {
      issuer,
      clientId: 'errata-test',
      clientSecret: 'a-client-secret-that-must-never-show',
      roleClaim: 'groups',
      roles: new Map(),
      scopes: 'openid email',
      createUsers: false,
      trustUnverifiedEmail: false,
      name: 'Test',
      allowHttp: true,
    };
    const sso = openidProvider(oidc, BASE_URL);
    await expect(sso.authorizationUrl(CHECKS)).rejects.toThrow();
    provider = await startOpenIdProvider({}, [new URL(CALLBACK_PATH, BASE_URL).href], port);
    const url = await sso.authorizationUrl(CHECKS);
    expect(url.origin).toBe(issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'errata-test',
      redirect_uri: `${BASE_URL}${CALLBACK_PATH}`,
      state: CHECKS.state,
      nonce: CHECKS.nonce,
      code_challenge_method: 'S256',
    });
  });
});
