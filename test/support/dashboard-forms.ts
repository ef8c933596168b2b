// Posting the dashboard's forms without a browser, as a browser would: the CSRF cookie and token
// from the page, the Origin header, and the cookies each answer sets. For the checks a browser
// cannot make (a foreign Origin, a stale session cookie, a burst of sign-ins).

interface FormAnswer {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
  /** name=value of each cookie the answer set (an empty value: cleared). */
  cookies: Record<string, string>;
}

function setCookies(headers: Headers): Record<string, string> {
  return Object.fromEntries(headers.getSetCookie().map((line) => line.split(';')[0]!.split('=') as [string, string]));
}

export class FormClient {
  /** The cookies this client sends, as a browser keeps them. */
  readonly jar: Record<string, string> = {};

  constructor(private readonly baseUrl: string) {}

  private cookieHeader(): string {
    return Object.entries(this.jar)
      .filter(([, value]) => value !== '')
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  private keep(answer: Response): FormAnswer {
    const cookies = setCookies(answer.headers);
    Object.assign(this.jar, cookies);
    return { status: answer.status, location: answer.headers.get('location'), html: '', headers: answer.headers, cookies };
  }

  /** A GET as a browser would send it; `headers` add to the cookie (e.g. HX-Request for an htmx fragment). */
  async get(path: string, headers: Record<string, string> = {}): Promise<FormAnswer> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), ...headers },
    });
    const answer = this.keep(response);
    return { ...answer, html: await response.text() };
  }

  /** The hidden CSRF token of the form on the page at `path`. */
  async token(path: string): Promise<string> {
    const { html } = await this.get(path);
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error(`no CSRF token on ${path}:\n${html.slice(0, 500)}`);
    return token;
  }

  /** Posts a form; fields as pairs when a name repeats (checkboxes). */
  async post(
    path: string,
    fields: Record<string, string> | Array<[string, string]>,
    headers: Record<string, string> = { origin: this.baseUrl },
  ): Promise<FormAnswer> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    const answer = this.keep(response);
    return { ...answer, html: await response.text() };
  }

  /** Signs in through /login's form; the session cookie is then in the jar. */
  async signIn(email: string, password: string): Promise<FormAnswer> {
    return this.post('/login', { csrf: await this.token('/login'), email, password });
  }
}
