// The pages a one-time link leads to: /setup (the first owner) and /reset (a new password),
// and what any one-time link (these and invitations) says when it no longer works.
import type { AssetSet } from '../assets/asset-store.ts';
import { AuthCard, CsrfField } from '../components/auth-card.tsx';

interface FormProps {
  assets: AssetSet;
  csrf: string;
  code: string;
  alert?: string | undefined;
}

export function PasswordFields() {
  return (
    <>
      <div class="field">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minLength={8} required />
      </div>
      <div class="field">
        <label for="password2">Password, again</label>
        <input id="password2" name="password2" type="password" autocomplete="new-password" minLength={8} required />
      </div>
    </>
  );
}

export function SetupPage({ assets, csrf, code, alert, name, email }: FormProps & { name?: string; email?: string }) {
  return (
    <AuthCard title="Create the first owner" assets={assets} alert={alert}>
      <p>Nobody can sign in yet. The owner you create here can do everything, including adding people.</p>
      <form class="form" method="post" action="/setup">
        <CsrfField token={csrf} />
        <input type="hidden" name="code" value={code} />
        <div class="field">
          <label for="name">Name</label>
          <input id="name" name="name" type="text" autocomplete="name" maxLength={100} value={name} />
        </div>
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={email} />
        </div>
        <PasswordFields />
        <button class="button button-primary" type="submit">
          Create owner and sign in
        </button>
      </form>
    </AuthCard>
  );
}

export function ResetPage({ assets, csrf, code, alert }: FormProps) {
  return (
    <AuthCard title="Set a new password" assets={assets} alert={alert}>
      <p>Setting it signs you out everywhere else.</p>
      <form class="form" method="post" action="/reset">
        <CsrfField token={csrf} />
        <input type="hidden" name="code" value={code} />
        <PasswordFields />
        <button class="button button-primary" type="submit">
          Set password and sign in
        </button>
      </form>
    </AuthCard>
  );
}

const HOW_TO_GET_ANOTHER = {
  setup:
    'While nobody can sign in, each start of Errata prints a new setup link (the last one printed is the one that works), or create the first owner with: errata createuser --email you@example.com --owner',
  reset:
    'A reset link works once and for a day, and a newer one replaces it. Get a new one with: errata resetpassword --email you@example.com',
  invitation:
    'An invitation link works once and for 7 days, and an owner can revoke it. Ask an owner for a new one (Members, in the dashboard).',
};

const WHY_NOT: Record<keyof typeof HOW_TO_GET_ANOTHER, string> = {
  setup:
    'This setup link was used, replaced by a newer one or has expired (it works for a day), or someone has already been set up.',
  reset: 'This reset link was used, replaced by a newer one, or has expired.',
  invitation: 'This invitation was used, revoked or has expired.',
};

export function LinkUsedPage({ assets, purpose }: { assets: AssetSet; purpose: keyof typeof HOW_TO_GET_ANOTHER }) {
  return (
    <AuthCard title="This link no longer works" assets={assets}>
      <p>{WHY_NOT[purpose]}</p>
      <p>{HOW_TO_GET_ANOTHER[purpose]}</p>
      <a class="button" href="/login">
        Go to sign-in
      </a>
    </AuthCard>
  );
}
