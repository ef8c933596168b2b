// /login: the sign-in form. It works without JavaScript (a plain form post). Until user
// accounts exist, a sign-in is answered with this form again and a notice saying so.
import type { AssetSet } from '../assets/asset-store.ts';
import { Document, Logo } from '../components/document.tsx';

interface LoginPageProps {
  assets: AssetSet;
  /** Shown above the form, announced to screen readers. */
  notice?: string;
}

export function LoginPage({ assets, notice }: LoginPageProps) {
  return (
    <Document title="Sign in" assets={assets}>
      <main id="main" class="auth" tabIndex={-1}>
        <div class="auth-card">
          <div class="brand brand-large">
            <Logo />
            <span>Errata</span>
          </div>
          <h1>Sign in</h1>
          {notice && (
            <p class="notice notice-warning" role="alert">
              {notice}
            </p>
          )}
          <form class="form" method="post" action="/login">
            <div class="field">
              <label for="email">Email</label>
              <input id="email" name="email" type="email" autocomplete="username" required />
            </div>
            <div class="field">
              <label for="password">Password</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required />
            </div>
            <button class="button button-primary" type="submit">
              Sign in
            </button>
          </form>
        </div>
        <p class="auth-footer">
          Agents and scripts use a bearer token instead: <code>errata createtoken</code>
        </p>
      </main>
    </Document>
  );
}
