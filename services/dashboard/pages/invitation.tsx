// The page an invitation link leads to (/invitations/{code}): the invited role, and the form
// that creates the person (name, email fixed when the owner named one, password twice, the
// same rules as setup and reset) and signs them in.
import type { HumanRole } from '../../core/auth/capabilities.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AuthCard, CsrfField } from '../components/auth-card.tsx';
import { ROLE_MEANINGS } from './members-parts.tsx';
import { PasswordFields } from './one-time-link.tsx';

interface InvitationPageProps {
  assets: AssetSet;
  csrf: string;
  /** /invitations/{code}: the form posts back to its own link. */
  action: string;
  role: HumanRole;
  alert?: string | undefined;
  name?: string;
  email: string;
  /** The owner named the email: it is the one the person joins with. */
  named: boolean;
}

export function InvitationPage({ assets, csrf, action, role, alert, name, email, named }: InvitationPageProps) {
  return (
    <AuthCard title="Join Errata" assets={assets} alert={alert}>
      <p>
        You are invited as <strong>{role}</strong>: {ROLE_MEANINGS[role]}. Choose how you sign in; this link then stops working.
      </p>
      <form class="form" method="post" action={action}>
        <CsrfField token={csrf} />
        <div class="field">
          <label for="name">Name</label>
          <input id="name" name="name" type="text" autocomplete="name" maxLength={100} value={name} />
        </div>
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            readOnly={named}
            aria-describedby={named ? 'email-hint' : undefined}
          />
          {named && (
            <p id="email-hint" class="hint">
              The invitation is for this address.
            </p>
          )}
        </div>
        <PasswordFields />
        <button class="button button-primary" type="submit">
          Join and sign in
        </button>
      </form>
    </AuthCard>
  );
}
