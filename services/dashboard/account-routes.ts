// /account and its forms: the person's own settings (name, time zone, theme), a new password
// given the current one (every other session ends, and this one gets a new cookie), and their
// sessions, each one endable.
// Every POST is checked for origin and the session's CSRF token first (auth/checked-form.ts).
import type Koa from 'koa';
import { h } from 'preact';
import { UserInputError } from '../core/errors.ts';
import { isRowId } from '../core/row-id.ts';
import { endSession, listOwnSessions } from '../core/people/sessions.ts';
import { changePassword, timeZones, updateProfile, WrongCurrentPasswordError } from '../core/people/users.ts';
import type { AssetSet } from './assets/asset-store.ts';
import { beginSession } from './auth/begin-session.ts';
import { checkedForm } from './auth/checked-form.ts';
import { cookieNames, setCookie } from './auth/cookies.ts';
import { sessionCsrfToken } from './auth/csrf.ts';
import { currentSession, type Signed } from './auth/current-session.ts';
import { waitText, type AttemptOutcome, type SignInThrottle } from './auth/sign-in-throttle.ts';
import { AccountPage, type AccountNotice } from './pages/account.tsx';
import { sendPage } from './render-page.ts';
import { redirectNotice } from './redirect-notice.ts';
import type { SignInDeps } from './sign-in-routes.ts';

const SAVED: Record<string, string> = {
  profile: 'Your settings are saved.',
  password: 'Your password is changed; every other session has ended.',
};

export function accountRoutes(deps: SignInDeps, throttle: SignInThrottle) {
  const jar = cookieNames(deps.baseUrl);

  const seeOther = (ctx: Koa.Context, to: string) => {
    ctx.redirect(to);
    ctx.status = 303;
  };

  const render = async (ctx: Koa.Context, assets: AssetSet, signed: Signed, status: number, notice?: AccountNotice) => {
    const sessions = await listOwnSessions(deps.users, signed.user.id, new Date());
    sendPage(
      ctx,
      status,
      h(AccountPage, {
        assets,
        csrf: sessionCsrfToken(signed.token),
        user: signed.user,
        sessions,
        currentSessionId: signed.session.id,
        timeZones: timeZones(),
        now: new Date(),
        notice,
      }),
    );
  };

  /** The signed-in person and their posted form, or undefined once a redirect or refusal is sent. */
  const posted = async (ctx: Koa.Context, assets: AssetSet) => {
    const signed = await currentSession(deps.users, jar, ctx);
    // A session that ended (idle, signed out elsewhere) goes to sign-in: with no session there is
    // no token to match, and the form was refused as forged. Nothing is read or changed.
    if (!signed) return seeOther(ctx, '/login');
    const form = await checkedForm(ctx, assets, deps.baseUrl, sessionCsrfToken(signed.token));
    if (!form) return undefined;
    return { signed, form };
  };

  /** A refused setting shows the page again with the reason, the other forms untouched. */
  const refusedWith = async (
    ctx: Koa.Context,
    assets: AssetSet,
    signed: Signed,
    form: 'profile' | 'password',
    work: () => Promise<void>,
  ) => {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof UserInputError)) throw error;
      return render(ctx, assets, signed, 400, { form, kind: 'error', text: capitalise(error.message) });
    }
    seeOther(ctx, `/account?saved=${form}`);
  };

  return {
    async account(ctx: Koa.Context, assets: AssetSet) {
      if (ctx.method === 'POST') {
        const got = await posted(ctx, assets);
        if (!got) return;
        const { signed, form } = got;
        return refusedWith(ctx, assets, signed, 'profile', async () => {
          await updateProfile(deps.users, signed.user.id, {
            name: form.get('name') ?? '',
            timeZone: form.get('timeZone') ?? '',
            theme: form.get('theme') ?? '',
          });
        });
      }
      const signed = await currentSession(deps.users, jar, ctx);
      if (!signed) return seeOther(ctx, '/login');
      const text = redirectNotice(ctx, 'saved', SAVED);
      const notice = text ? { form: ctx.query.saved as 'profile' | 'password', kind: 'saved' as const, text } : undefined;
      return render(ctx, assets, signed, 200, notice);
    },

    /**
     * A new password: the current one is checked against the sign-in throttle's count for the
     * session (a stolen session cannot guess it without limit), and the session that changed it
     * gets a new cookie, as a sign-in does, so a copy of the old one stops working too.
     */
    async password(ctx: Koa.Context, assets: AssetSet) {
      const got = await posted(ctx, assets);
      if (!got) return;
      const { signed, form } = got;
      const refuse = (status: number, message: string) =>
        render(ctx, assets, signed, status, { form: 'password', kind: 'error', text: capitalise(message) });
      const password = form.get('password') ?? '';
      if (password !== form.get('password2'))
        return refuse(400, 'the two new passwords are not the same: type the same password twice');
      // The session is the device: others' failed sign-ins for the account do not hold it.
      const attempt = { email: signed.user.email, ip: ctx.ip, device: `session ${signed.session.id}` };
      const throttled = throttle.begin(attempt);
      if (throttled) {
        ctx.set('Retry-After', String(Math.ceil(throttled.retryAfterMs / 1000)));
        return refuse(429, `too many wrong passwords in this session: wait ${waitText(throttled.retryAfterMs)} and try again`);
      }
      let outcome: AttemptOutcome = 'abandoned';
      try {
        await changePassword(deps, signed.user.id, { current: form.get('current') ?? '', password }, signed.session.id);
        outcome = 'succeeded';
      } catch (error) {
        if (error instanceof WrongCurrentPasswordError) outcome = 'failed';
        if (!(error instanceof UserInputError)) throw error;
        return refuse(400, error.message);
      } finally {
        throttle.settle(attempt, outcome);
      }
      await beginSession(deps.users, jar, ctx, signed.user.id, '/account?saved=password');
    },

    async endSession(ctx: Koa.Context, assets: AssetSet) {
      const got = await posted(ctx, assets);
      if (!got) return;
      const { signed, form } = got;
      const id = Number(form.get('session'));
      if (!isRowId(id)) throw new UserInputError('the session to end is not a session id: use the End button on /account');
      await endSession(deps.users, signed.user.id, id);
      if (id === signed.session.id) {
        setCookie(ctx, jar, jar.session, '', 0);
        return seeOther(ctx, '/login');
      }
      seeOther(ctx, '/account');
    },
  };
}

const capitalise = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
