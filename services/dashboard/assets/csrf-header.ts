// htmx's requests carry the session's CSRF token (the errata-csrf meta tag the frame renders)
// in the X-Errata-CSRF header, as a form carries it in its hidden field. htmx 4 names the event
// htmx:config:request and puts the request's headers at detail.ctx.request.headers.
export function sendCsrfWithHtmx(): void {
  document.addEventListener('htmx:config:request', (event) => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="errata-csrf"]')?.content;
    const detail = (event as CustomEvent<{ ctx: { request: { headers: Record<string, string> } } }>).detail;
    if (token) detail.ctx.request.headers['X-Errata-CSRF'] = token;
  });
}
