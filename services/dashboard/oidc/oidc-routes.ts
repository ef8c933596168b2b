// Single sign-on beside passwords: GET /sign-in/oidc sends the browser to the provider with a
// state, nonce and PKCE challenge bound to it (sign-in-binding.ts); GET /sign-in/oidc/callback
// checks the state against this browser's cookie before anything else, has openid-client
// exchange the code and verify the ID token, and lets core decide (people/oidc-roles.ts) whether
// the person signs in, is created, or is refused with a page saying why and what to do.
import type Koa from 'koa';
import { h } from 'preact';
import { decideOidcSignIn, roleFromClaim, type OidcOutcome } from '../../core/people/oidc-roles.ts';
import { ConflictError } from '../../core/errors.ts';
import { createSignedOnUser } from '../../core/people/users.ts';
import type { UserStore } from '../../core/ports/user-store.ts';
import type { OidcConfig } from '../../runtime/config.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { beginSession } from '../auth/begin-session.ts';
import { cookieNames, readCookie, setCookie } from '../auth/cookies.ts';
import { nextPath } from '../auth/next-path.ts';
import { SignInRefusedPage } from '../pages/sign-in-refused.tsx';
import { sendPage } from '../render-page.ts';
import { CALLBACK_PATH, openidProvider, type Claims, type OidcProvider } from './openid-client-port.ts';
import { BINDING_MAX_AGE_SECONDS, checksOf, mintBinding, nextOf, stateMatches } from './sign-in-binding.ts';

export const START_PATH = '/sign-in/oidc';
export { CALLBACK_PATH };

interface OidcRouteDeps {
  users: UserStore;
  baseUrl: string;
  logger: Logger;
  oidc?: OidcConfig | undefined;
}

const NOT_THIS_BROWSER =
  'The sign-in did not come from this browser, or took longer than ten minutes: start again from the sign-in page.';

export function oidcRoutes(deps: OidcRouteDeps) {
  const jar = cookieNames(deps.baseUrl);
  const bindingCookie = `${jar.secure ? '__Host-' : ''}errata_oidc`;
  const oidc = deps.oidc;
  const provider: OidcProvider | undefined = oidc && openidProvider(oidc, deps.baseUrl);

  const START_AGAIN =
    'An account with your email was created while you were signing in (in another tab, or by an invitation). Start again to sign in to it.';

  const refuse = (ctx: Koa.Context, assets: AssetSet, status: number, title: string, message: string) =>
    sendPage(ctx, status, h(SignInRefusedPage, { assets, title, message }));

  const unavailable = (ctx: Koa.Context, assets: AssetSet, error: unknown, what: string) => {
    // openid-client's errors carry no client secret; their text stays in the log, not the page.
    deps.logger.warn({ err: error }, what);
    return refuse(
      ctx,
      assets,
      502,
      'Single sign-on failed',
      'The sign-in could not be completed with the provider. Start again; if it keeps failing, the server log says why. Your password still works below.',
    );
  };

  /** Why a verified person is not let in, in words they can act on. */
  const refusal = (outcome: Extract<OidcOutcome, { kind: 'refused' }>, claims: Claims): string => {
    const email = typeof claims.email === 'string' ? claims.email : '';
    switch (outcome.reason) {
      case 'no-email':
        return 'The provider did not say who you are by email: it must release the email claim (the "email" scope) to Errata. Ask its administrator.';
      case 'email-unverified':
        return `The provider says your email address ${email} is not verified. Verify it there, then sign in again.`;
      case 'email-unconfirmed':
        return `An Errata account uses ${email}, but the provider did not say that this address is verified (it sent no email_verified claim), so it cannot sign you into that account. Sign in with that account's password; or, if only this provider's administrators can set its email addresses, an owner of Errata can set ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL=true.`;
      case 'no-role':
        return `Your account has no value in its "${oidc!.roleClaim}" claim that Errata maps to a role. An owner of Errata must grant you access (have you added to a mapped group), then sign in again.`;
      case 'linked-elsewhere':
        return `The Errata account for ${email} signs in as another account of this provider. If that is still yours, sign in with it; if your provider account was replaced, an owner must remove the Errata account and add it again.`;
      case 'email-self-chosen':
        return `An Errata account uses ${email}, but it joined by an invitation that named no email, so nobody vouched that the address is its holder's. Sign in with that account's password, or an owner must remove it (errata deleteuser) so that single sign-on makes yours.`;
      case 'unknown-user':
        return `Errata has no account for ${email}, and single sign-on does not create accounts here. An owner must add you first (errata createuser), then sign in again.`;
    }
  };

  return {
    async start(ctx: Koa.Context, assets: AssetSet) {
      if (!provider)
        return refuse(
          ctx,
          assets,
          404,
          'Single sign-on is off',
          'This Errata has no single sign-on: sign in with your password.',
        );
      const cookie = mintBinding(nextPath(ctx.query.next) ?? '/organizations');
      let url: URL;
      try {
        url = await provider.authorizationUrl(checksOf(cookie));
      } catch (error) {
        return unavailable(ctx, assets, error, 'the OpenID provider could not be discovered');
      }
      setCookie(ctx, jar, bindingCookie, cookie, BINDING_MAX_AGE_SECONDS);
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(url.href);
    },

    async callback(ctx: Koa.Context, assets: AssetSet) {
      if (!provider || !oidc)
        return refuse(
          ctx,
          assets,
          404,
          'Single sign-on is off',
          'This Errata has no single sign-on: sign in with your password.',
        );
      const cookie = readCookie(ctx, bindingCookie);
      // One use: whatever happens next, this browser starts again for another try.
      setCookie(ctx, jar, bindingCookie, '', 0);
      ctx.set('Cache-Control', 'no-store');
      if (!stateMatches(cookie, ctx.query.state)) return refuse(ctx, assets, 400, 'Sign-in not accepted', NOT_THIS_BROWSER);
      if (typeof ctx.query.error === 'string') {
        // An OAuth error code (access_denied, ...) is a fixed word; the provider's description is not echoed.
        const code = /^[a-z_]{1,40}$/.test(ctx.query.error) ? ` (it answered ${ctx.query.error})` : '';
        return refuse(
          ctx,
          assets,
          403,
          'Not signed in',
          `The provider did not sign you in${code}. Start again, or sign in with your password.`,
        );
      }
      let claims: Claims;
      try {
        claims = await provider.claims(new URL(`${CALLBACK_PATH}?${ctx.querystring}`, `${deps.baseUrl}/`), checksOf(cookie!));
      } catch (error) {
        return unavailable(ctx, assets, error, 'the OpenID sign-in did not verify');
      }
      const email = typeof claims.email === 'string' && claims.email ? claims.email : undefined;
      // The ID token's issuer and subject, verified by openid-client: who this is at the provider.
      const identity = { issuer: String(claims.iss), subject: String(claims.sub) };
      const existing = email ? await deps.users.findUserByEmail(email) : undefined;
      const existingSubject = existing && (await deps.users.identitySubject(existing.id, identity.issuer));
      const owners = (await deps.users.listUsers()).filter((user) => user.role === 'owner').length;
      const outcome = decideOidcSignIn({
        email,
        emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined,
        role: roleFromClaim(claims[oidc.roleClaim], oidc.roles),
        linked: await deps.users.findUserByIdentity(identity.issuer, identity.subject),
        existing,
        existingLinkedElsewhere: existingSubject !== undefined && existingSubject !== identity.subject,
        owners,
        createUsers: oidc.createUsers,
        trustUnverifiedEmail: oidc.trustUnverifiedEmail,
      });
      deps.logger.info({ outcome: outcome.kind, reason: 'reason' in outcome ? outcome.reason : undefined }, 'OpenID sign-in');
      if (outcome.kind === 'refused') return refuse(ctx, assets, 403, 'No access', refusal(outcome, claims));
      let userId: number;
      if (outcome.kind === 'create') {
        const name = typeof claims.name === 'string' ? claims.name : '';
        try {
          userId = (await createSignedOnUser(deps.users, { email: email!, name, role: outcome.role })).id;
        } catch (error) {
          // An account with this email was made meanwhile (another tab's first sign-in, an
          // invitation accepted): decided afresh on the next try, never taken as made here.
          if (!(error instanceof ConflictError)) throw error;
          return refuse(ctx, assets, 409, 'Sign-in not completed', START_AGAIN);
        }
      } else {
        userId = outcome.user.id;
      }
      // Linked before the role changes: a sign-in that raced another to the same account loses here.
      if (!(await deps.users.linkIdentity(userId, identity.issuer, identity.subject))) {
        return refuse(ctx, assets, 403, 'No access', refusal({ kind: 'refused', reason: 'linked-elsewhere' }, claims));
      }
      // The store keeps the only owner an owner even when another sign-in demoted the second meanwhile.
      if (outcome.kind === 'sign-in' && outcome.user.role !== outcome.role) {
        const changed = await deps.users.setRole(userId, outcome.role);
        if (changed === 'only-owner') {
          deps.logger.warn({ userId, role: outcome.role }, "OpenID sign-in: the provider's role not applied to the only owner");
        } else if (changed && (outcome.user.role === 'owner' || outcome.role === 'member')) {
          // Not quiet: what they made that the new role does not make is revoked with it (UserStore.setRole).
          deps.logger.warn(
            { userId, from: outcome.user.role, role: outcome.role },
            "OpenID sign-in lowered a role, as the provider's role says: the tokens and invitations they made that it does not make are revoked",
          );
        }
      }
      await beginSession(deps.users, jar, ctx, userId, nextPath(nextOf(cookie!)) ?? '/organizations');
    },
  };
}
