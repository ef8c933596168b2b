// The 403 a refused form post gets (auth/csrf.ts): what did not match and which setting fixes it,
// since behind a proxy a wrong ERRATA_BASE_URL is the usual cause.
import type { AssetSet } from '../assets/asset-store.ts';
import { AuthCard } from '../components/auth-card.tsx';
import type { CsrfRefusal } from '../auth/csrf.ts';

export function RefusedPage({ assets, refusal }: { assets: AssetSet; refusal: CsrfRefusal }) {
  return (
    <AuthCard title="Request refused" assets={assets} alert={refusal.reason}>
      <p>Errata refused this form post because it could not tell that it came from its own pages.</p>
      <p>{refusal.fix}</p>
      <a class="button" href="/">
        Go to the start page
      </a>
    </AuthCard>
  );
}
