// /login: the sign-in form. It works without JavaScript (a plain form post); a refused sign-in
// answers with the form again, the email kept and the reason in an alert. With single sign-on
// configured its button comes first, the password form staying below it (the way back in for
// the local owner, whatever the provider does).
import type { AssetSet } from '../assets/asset-store.ts';
import { AuthCard, CsrfField } from '../components/auth-card.tsx';

interface LoginPageProps {
  assets: AssetSet;
  csrf: string;
  /** Why the last attempt failed, or a notice (signed out, password set). */
  alert?: string | undefined;
  email?: string | undefined;
  /** The page to return to after signing in (a link followed while signed out). */
  next?: string | undefined;
  /** The single sign-on provider's name when ERRATA_OIDC_* is set: a button beside the form. */
  sso?: string | undefined;
}

export function LoginPage({ assets, csrf, alert, email, next, sso }: LoginPageProps) {
  return (
    <AuthCard
      title="Sign in"
      assets={assets}
      alert={alert}
      footer={
        <>
          Agents and scripts use a bearer token instead: <code>errata createtoken</code>
        </>
      }
    >
      {sso && (
        <>
          <a class="button button-primary auth-sso" href={next ? `/sign-in/oidc?${new URLSearchParams({ next })}` : '/sign-in/oidc'}>
            Sign in with {sso}
          </a>
          <p class="auth-divider">or with your password</p>
        </>
      )}
      <form class="form" method="post" action="/login">
        <CsrfField token={csrf} />
        {next && <input type="hidden" name="next" value={next} />}
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={email} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <button class={sso ? 'button' : 'button button-primary'} type="submit">
          Sign in
        </button>
      </form>
    </AuthCard>
  );
}
