// The dashboard's side of an OpenID Connect provider, through openid-client: discovery (fetched
// on first use and kept; a failure is not kept, so the next sign-in tries again), the
// authorization URL with PKCE S256, and the code exchange, which checks the state, the ID token's
// signature, issuer, audience, expiry and nonce. Claims come from the ID token, with the userinfo
// endpoint filling in what it lacks (many providers keep groups out of the ID token).
// openid-client loads with the first sign-in, not with the server: most servers have no provider
// (with PGlite, also on demand on the main thread, it held 1.3 MB of heap; docs/benchmarks.md).
import type * as OpenidClient from 'openid-client';
import type { OidcConfig } from '../../runtime/config.ts';
import type { SignInChecks } from './sign-in-binding.ts';

/** Where the provider sends the browser back; register this exact address with the provider. */
export const CALLBACK_PATH = '/sign-in/oidc/callback';

export type Claims = Record<string, unknown>;

export interface OidcProvider {
  authorizationUrl(checks: SignInChecks): Promise<URL>;
  /** The verified claims of the person the callback's code names; throws when anything does not check out. */
  claims(callbackUrl: URL, checks: SignInChecks): Promise<Claims>;
}

export function openidProvider(oidc: OidcConfig, baseUrl: string): OidcProvider {
  const redirectUri = new URL(CALLBACK_PATH, `${baseUrl}/`).href;
  let discovered: Promise<{ client: typeof OpenidClient; config: OpenidClient.Configuration }> | undefined;
  /** The library and the provider's configuration, discovered once. */
  const configuration = () => {
    discovered ??= import('openid-client')
      .then(async (client) => {
        const config = await client.discovery(
          new URL(oidc.issuer),
          oidc.clientId,
          { redirect_uris: [redirectUri] },
          client.ClientSecretBasic(oidc.clientSecret),
          {
            // Allowed by config.ts only for an issuer on loopback.
            ...(oidc.allowHttp ? { execute: [client.allowInsecureRequests] } : {}),
            timeout: 10,
          },
        );
        return { client, config };
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };

  return {
    async authorizationUrl(checks) {
      const { client, config } = await configuration();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: oidc.scopes,
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: 'S256',
      });
    },

    async claims(callbackUrl, checks) {
      const { client, config } = await configuration();
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const fromIdToken: Claims = { ...tokens.claims() };
      if (!config.serverMetadata().userinfo_endpoint) return fromIdToken;
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, String(fromIdToken.sub));
      // The ID token wins where both say something: it is signed.
      return { ...userinfo, ...fromIdToken };
    },
  };
}
