// Signing in and out, and the one-time links (/setup, /reset, /invitations/{code}). Every POST is
// checked for origin and CSRF token first (auth/csrf.ts); a session is rotated at sign-in (the
// one a cookie names is ended) and its cookie is set as auth/cookies.ts says.
import type Koa from 'koa';
import { h, type JSX } from 'preact';
import type { PasswordHasher } from '../core/auth/password-hash.ts';
import { hashSecret } from '../core/auth/secrets.ts';
import { ConflictError, isBusy, UserInputError, type ErrataError } from '../core/errors.ts';
import { acceptInvitation, checkInvitation } from '../core/people/invitations.ts';
import { checkCode, redeemCode } from '../core/people/one-time-codes.ts';
import { endSession } from '../core/people/sessions.ts';
import { createUser, setPassword } from '../core/people/users.ts';
import type { CodePurpose, OneTimeCode, User, UserCredentials, UserStore } from '../core/ports/user-store.ts';
import type { OidcConfig } from '../runtime/config.ts';
import type { AssetSet } from './assets/asset-store.ts';
import { cookieNames, CSRF_COOKIE_MAX_AGE, readCookie, setCookie, type CookieJar } from './auth/cookies.ts';
import { beginSession } from './auth/begin-session.ts';
import { deviceCookieShaped, trustedDevice } from './auth/device-cookie.ts';
import { currentSession } from './auth/current-session.ts';
import { nextPath } from './auth/next-path.ts';
import { checkedForm } from './auth/checked-form.ts';
import { mintCsrfCookie, sessionCsrfToken } from './auth/csrf.ts';
import { waitText, type AttemptOutcome, type SignInThrottle } from './auth/sign-in-throttle.ts';
import { LoginPage } from './pages/login.tsx';
import { InvitationPage } from './pages/invitation.tsx';
import { LinkUsedPage, ResetPage, SetupPage } from './pages/one-time-link.tsx';
import { sendPage } from './render-page.ts';

export interface SignInDeps {
  users: UserStore;
  passwords: PasswordHasher;
  /** ERRATA_BASE_URL: the origin form posts must come from, and whether cookies are Secure. */
  baseUrl: string;
  /** ERRATA_OIDC_*: single sign-on beside passwords, when configured. */
  oidc?: OidcConfig | undefined;
}

/** One message for an unknown email and a wrong password, so it tells nobody who has an account. */
const WRONG = 'The email or password is not right.';
const MISMATCH = 'The two passwords are not the same: type the same password twice.';
/** Whose failures hold a sign-in, as the refusal names them. */
const WHOSE = { account: 'this email address', address: 'your network address', device: 'this browser' } as const;

export function signInRoutes(deps: SignInDeps, throttle: SignInThrottle) {
  const jar: CookieJar = cookieNames(deps.baseUrl);
  const sso = deps.oidc?.name;

  const signedIn = (ctx: Koa.Context) => currentSession(deps.users, jar, ctx);

  /** The sign-in forms' CSRF cookie, set when the browser has none yet. */
  const formToken = (ctx: Koa.Context): string => {
    const existing = readCookie(ctx, jar.csrf);
    if (existing) return existing;
    const minted = mintCsrfCookie();
    setCookie(ctx, jar, jar.csrf, minted, CSRF_COOKIE_MAX_AGE);
    return minted;
  };

  /**
   * The posted form when it came from our own pages; otherwise sends the 403 page and answers
   * undefined. The origin is checked before the body is read.
   */
  const postedForm = (ctx: Koa.Context, assets: AssetSet, expected: string | undefined) =>
    checkedForm(ctx, assets, deps.baseUrl, expected);

  const seeOther = (ctx: Koa.Context, to: string) => {
    ctx.redirect(to);
    ctx.status = 303;
  };

  const signIn = (ctx: Koa.Context, userId: number, next = '/organizations') => beginSession(deps.users, jar, ctx, userId, next);

  const signOut = (ctx: Koa.Context) => setCookie(ctx, jar, jar.session, '', 0);

  /** Puts a code back after a refused form (a typo must not use the link up). */
  const restore = (purpose: CodePurpose, code: string, taken: OneTimeCode) =>
    deps.users.replaceCode({ ...taken, purpose, codeHash: hashSecret(code) });

  const page = (ctx: Koa.Context, status: number, element: JSX.Element) => sendPage(ctx, status, element);

  /** The form again with the refusal's reason: a 503 with Retry-After when the server was too busy, else a 400. */
  const busyOr = (ctx: Koa.Context, error: ErrataError, again: (alert: string, status?: number) => void) => {
    if (!isBusy(error)) return again(capitalise(error.message));
    ctx.set('Retry-After', String(error.retryAfterSeconds));
    return again(capitalise(error.message), 503);
  };

  return {
    async home(ctx: Koa.Context) {
      ctx.redirect((await signedIn(ctx)) ? '/organizations' : '/login');
    },

    async login(ctx: Koa.Context, assets: AssetSet) {
      if (ctx.method !== 'POST') {
        const next = nextPath(ctx.query.next);
        if (await signedIn(ctx)) return seeOther(ctx, next ?? '/organizations');
        return page(ctx, 200, h(LoginPage, { assets, csrf: formToken(ctx), next, sso }));
      }
      const form = await postedForm(ctx, assets, readCookie(ctx, jar.csrf));
      if (!form) return;
      const email = (form.get('email') ?? '').trim();
      const password = form.get('password') ?? '';
      const next = nextPath(form.get('next'));
      const again = (alert: string, status = 400) =>
        page(ctx, status, h(LoginPage, { assets, csrf: formToken(ctx), alert, email, next, sso }));
      // Only a browser that shows a device cookie has the email looked up before the throttle, and
      // then not again: an unknown email costs what a known one does.
      const deviceCookie = deviceCookieShaped(readCookie(ctx, jar.device));
      const known = deviceCookie && email ? await deps.users.findUserByEmail(email) : undefined;
      const attempt = { email, ip: ctx.ip, device: trustedDevice(deviceCookie, known) };
      const throttled = throttle.begin(attempt);
      if (throttled) {
        ctx.set('Retry-After', String(Math.ceil(throttled.retryAfterMs / 1000)));
        const whose = WHOSE[throttled.what];
        const wait = `Wait ${waitText(throttled.retryAfterMs)} and try again.`;
        return again(
          throttled.pending
            ? `Too many sign-ins for ${whose} are being checked at once. ${wait}`
            : `Too many failed sign-ins for ${whose}. ${wait}`,
          429,
        );
      }
      let outcome: AttemptOutcome = 'abandoned';
      let user: UserCredentials | undefined;
      try {
        user = email ? (deviceCookie ? known : await deps.users.findUserByEmail(email)) : undefined;
        // verify hashes even without a user, so an unknown email takes as long as a wrong password.
        outcome = (await deps.passwords.verify(password, user?.passwordHash)) && user ? 'succeeded' : 'failed';
      } catch (error) {
        // Too many hashes already waiting: this guess was not checked, so it does not count.
        if (!isBusy(error)) throw error;
        return busyOr(ctx, error, again);
      } finally {
        throttle.settle(attempt, outcome);
      }
      if (outcome === 'failed' || !user) return again(WRONG, 401);
      if (deps.passwords.needsRehash(user.passwordHash!)) {
        // Best effort: a server too busy to rehash now still signs in the right password.
        try {
          await deps.users.setPasswordHash(user.id, await deps.passwords.hash(password));
        } catch (error) {
          if (!isBusy(error)) throw error;
        }
      }
      await signIn(ctx, user.id, next);
    },

    async logout(ctx: Koa.Context, assets: AssetSet) {
      const current = await signedIn(ctx);
      // Already signed out (the session ended): there is no token to match, and nothing to end.
      if (!current) {
        signOut(ctx);
        return seeOther(ctx, '/login');
      }
      const form = await postedForm(ctx, assets, sessionCsrfToken(current.token));
      if (!form) return;
      await endSession(deps.users, current.user.id, current.session.id);
      signOut(ctx);
      seeOther(ctx, '/login');
    },

    async setup(ctx: Koa.Context, assets: AssetSet) {
      const now = new Date();
      const post = ctx.method === 'POST';
      const form = post ? await postedForm(ctx, assets, readCookie(ctx, jar.csrf)) : new URLSearchParams(ctx.querystring);
      if (!form) return;
      const code = form.get('code') ?? '';
      const used = () => page(ctx, 410, h(LinkUsedPage, { assets, purpose: 'setup' }));
      if ((await deps.users.countUsers()) > 0 || !(await checkCode(deps.users, 'setup', code, now))) return used();
      if (!post) return page(ctx, 200, h(SetupPage, { assets, csrf: formToken(ctx), code }));
      const name = form.get('name') ?? '';
      const email = form.get('email') ?? '';
      const password = form.get('password') ?? '';
      const again = (alert: string, status = 400) =>
        page(ctx, status, h(SetupPage, { assets, csrf: formToken(ctx), code, alert, name, email }));
      if (password !== form.get('password2')) return again(MISMATCH);
      const taken = await redeemCode(deps.users, 'setup', code, now);
      if (!taken) return used();
      let user: User;
      try {
        user = await createUser(deps, { email, name, role: 'owner', password });
      } catch (error) {
        if (!(error instanceof UserInputError || error instanceof ConflictError || isBusy(error))) throw error;
        // A refused form, or one the server was too busy for, keeps the link working.
        await restore('setup', code, taken);
        return busyOr(ctx, error, again);
      }
      await signIn(ctx, user.id);
    },

    async reset(ctx: Koa.Context, assets: AssetSet) {
      const now = new Date();
      const post = ctx.method === 'POST';
      const form = post ? await postedForm(ctx, assets, readCookie(ctx, jar.csrf)) : new URLSearchParams(ctx.querystring);
      if (!form) return;
      const code = form.get('code') ?? '';
      const used = () => page(ctx, 410, h(LinkUsedPage, { assets, purpose: 'reset' }));
      if (!(await checkCode(deps.users, 'reset', code, now))) return used();
      if (!post) return page(ctx, 200, h(ResetPage, { assets, csrf: formToken(ctx), code }));
      const password = form.get('password') ?? '';
      const again = (alert: string, status = 400) =>
        page(ctx, status, h(ResetPage, { assets, csrf: formToken(ctx), code, alert }));
      if (password !== form.get('password2')) return again(MISMATCH);
      const taken = await redeemCode(deps.users, 'reset', code, now);
      if (!taken?.userId) return used();
      try {
        // Ends every session of the user: whoever knew the old password is out.
        await setPassword(deps, taken.userId, password);
      } catch (error) {
        if (!(error instanceof UserInputError || isBusy(error))) throw error;
        await restore('reset', code, taken);
        return busyOr(ctx, error, again);
      }
      await signIn(ctx, taken.userId);
    },

    /**
     * An invitation link: its form (GET), then the new person with the invited role, signed in
     * (POST). A refused form keeps the link working; a used, revoked or expired one says so.
     */
    async invitation(ctx: Koa.Context, assets: AssetSet, code: string) {
      const now = new Date();
      const post = ctx.method === 'POST';
      const form = post ? await postedForm(ctx, assets, readCookie(ctx, jar.csrf)) : undefined;
      if (post && !form) return;
      const used = () => page(ctx, 410, h(LinkUsedPage, { assets, purpose: 'invitation' }));
      const invitation = /^[0-9A-Za-z]{1,100}$/.test(code) ? await checkInvitation(deps.users, code, now) : undefined;
      if (!invitation) return used();
      const action = `/invitations/${code}`;
      const named = invitation.email !== null;
      if (!form) {
        const email = invitation.email ?? '';
        return page(ctx, 200, h(InvitationPage, { assets, csrf: formToken(ctx), action, role: invitation.role, email, named }));
      }
      const name = form.get('name') ?? '';
      const email = invitation.email ?? form.get('email') ?? '';
      const password = form.get('password') ?? '';
      const again = (alert: string) =>
        page(
          ctx,
          400,
          h(InvitationPage, { assets, csrf: formToken(ctx), action, role: invitation.role, alert, name, email, named }),
        );
      if (password !== form.get('password2')) return again(MISMATCH);
      let user: User | undefined;
      try {
        user = await acceptInvitation(deps, code, { name, email, password }, now);
      } catch (error) {
        if (!(error instanceof UserInputError || error instanceof ConflictError)) throw error;
        return again(capitalise(error.message));
      }
      if (!user) return used();
      await signIn(ctx, user.id);
    },
  };
}

const capitalise = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
