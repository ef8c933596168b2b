// The centred card the pages before sign-in share (sign-in, setup, reset, a used link): the
// brand, a heading, an optional alert, and the content.
import type { ComponentChildren } from 'preact';
import type { AssetSet } from '../assets/asset-store.ts';
import { Document, Logo } from './document.tsx';

interface AuthCardProps {
  title: string;
  assets: AssetSet;
  /** Shown above the content, announced to screen readers. */
  alert?: string | undefined;
  children: ComponentChildren;
  footer?: ComponentChildren;
}

export function AuthCard({ title, assets, alert, children, footer }: AuthCardProps) {
  return (
    <Document title={title} assets={assets}>
      <main id="main" class="auth" tabIndex={-1}>
        <div class="auth-card">
          <div class="brand brand-large">
            <Logo />
            <span>Errata</span>
          </div>
          <h1>{title}</h1>
          {alert && (
            <p class="notice notice-warning" role="alert">
              {alert}
            </p>
          )}
          {children}
        </div>
        {footer && <p class="auth-footer">{footer}</p>}
      </main>
    </Document>
  );
}

/** The hidden field every form carries (auth/csrf.ts). */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="csrf" value={token} />;
}
