// Opens dashboard pages in Debian's chromium (never a downloaded browser) and holds each to the
// bar every page must clear: no console error, no Content-Security-Policy violation, our script
// ran, and no serious or critical accessibility violation that axe-core finds. A full-page
// screenshot of each goes to test-results/ (git-ignored) for a person to look at.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Response } from 'playwright-core';
import { REPO_ROOT } from './standalone-server.ts';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'dashboard');

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
}

/** How many lines an element's text takes on screen: a name broken mid-word shows as more than one. */
export function linesOf(element: Locator): Promise<number> {
  return element.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
  });
}

interface CheckedPage {
  page: Page;
  response: Response;
  /** Holds the page to the bar again (after a form post or a click), with another screenshot. */
  recheck(screenshot: string): Promise<void>;
  close(): Promise<void>;
}

interface PageOptions {
  colorScheme?: 'light' | 'dark';
  /** The screenshot's file name, without .png. */
  screenshot: string;
  /** Cookies the browser starts with (a signed-in FormClient's jar: see dashboard-people.ts), for the page's origin. */
  cookies?: Record<string, string>;
}

/** Recorded in the page before any of its own scripts run; CSP violations also reach the console, but not all of them. */
function recordViolations(): void {
  const seen: string[] = [];
  (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
  document.addEventListener('securitypolicyviolation', (event) => {
    seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
  });
}

/** Every finding in the message: a failure should say what to fix without a rerun. */
function failIfAny(what: string, findings: readonly string[]): void {
  if (findings.length > 0) throw new Error(`${what}:\n${findings.join('\n')}`);
}

export async function openCheckedPage(browser: Browser, url: string, options: PageOptions): Promise<CheckedPage> {
  const context: BrowserContext = await browser.newContext({ colorScheme: options.colorScheme ?? 'light' });
  if (options.cookies) {
    const origin = new URL(url).origin;
    await context.addCookies(
      Object.entries(options.cookies)
        .filter(([, value]) => value !== '')
        .map(([name, value]) => ({ name, value, url: origin })),
    );
  }
  const page = await context.newPage();
  const errors: string[] = [];
  // Chromium logs a page's own error status (a 404 page, a refused form post) as a console
  // error; the tests assert those statuses themselves. Any other failed load still counts.
  const documents = new Set<string>();
  page.on('response', (response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) documents.add(response.url());
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // The console names the document with the fragment its address had (a form posting to
    // `...#section`); the response, without.
    const documentUrl = message.location().url.split('#')[0]!;
    if (message.text().startsWith('Failed to load resource') && documents.has(documentUrl)) return;
    errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  await page.addInitScript(recordViolations);

  const check = async (screenshot: string) => {
    const violations = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
    failIfAny('Content-Security-Policy violations', violations);
    failIfAny('console errors', errors);
    // Our script loaded and ran: htmx is there (a blocked or broken bundle would leave it out).
    // It is deferred, so by the load event it has run.
    if (!(await page.evaluate(() => 'htmx' in window))) failIfAny('script', [`the page's script did not run (no window.htmx)`]);
    const axe = await new AxeBuilder({ page }).analyze();
    const serious = axe.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
    failIfAny('serious or critical accessibility violations', serious);
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${screenshot}.png`), fullPage: true });
  };

  const response = await page.goto(url, { waitUntil: 'load' });
  if (!response) throw new Error(`no response for ${url}`);
  await check(options.screenshot);
  return { page, response, recheck: check, close: () => context.close() };
}
