// htmx's requests carry the session's CSRF token (the errata-csrf meta tag the frame renders)
// in the X-Errata-CSRF header, as a form carries it in its hidden field.
export function sendCsrfWithHtmx(): void {
  document.addEventListener('htmx:configRequest', (event) => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="errata-csrf"]')?.content;
    const detail = (event as CustomEvent<{ headers: Record<string, string> }>).detail;
    if (token) detail.headers['X-Errata-CSRF'] = token;
  });
}
