// What a dashboard request the server could not take gets (a form that is not a form post, one
// too large, a field that makes no sense): the reason, as a page rather than the API's JSON.
import type { AssetSet } from '../assets/asset-store.ts';
import { AuthCard } from '../components/auth-card.tsx';

export function BadRequestPage({ assets, message }: { assets: AssetSet; message: string }) {
  return (
    <AuthCard title="Request not accepted" assets={assets} alert={message}>
      <p>Go back, check the form and send it again.</p>
      <a class="button" href="/">
        Go to the start page
      </a>
    </AuthCard>
  );
}
