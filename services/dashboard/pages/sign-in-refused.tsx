// What a single sign-on that did not end in a session shows: why (in words a person can act on)
// and the way back to the sign-in page, where the password form stays.
import type { AssetSet } from '../assets/asset-store.ts';
import { AuthCard } from '../components/auth-card.tsx';

interface SignInRefusedProps {
  assets: AssetSet;
  title: string;
  message: string;
}

export function SignInRefusedPage({ assets, title, message }: SignInRefusedProps) {
  return (
    <AuthCard title={title} assets={assets} alert={message}>
      <a class="button button-primary" href="/login">
        Back to sign in
      </a>
    </AuthCard>
  );
}
