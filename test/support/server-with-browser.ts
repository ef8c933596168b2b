// What most dashboard test files start before their tests and stop after: a standalone server
// and Debian's chromium (its path from global-setup.ts).
import type { Browser } from 'playwright-core';
import { inject } from 'vitest';
import { launchChromium } from './browser.ts';
import { startServer, stopAndRemove, type StandaloneServer } from './standalone-server.ts';

/** `env` adds to or overrides the server's environment (startServer's). */
export async function startWithBrowser(
  env: Record<string, string> = {},
): Promise<{ server: StandaloneServer; browser: Browser }> {
  const server = await startServer({ env });
  try {
    return { server, browser: await launchChromium(inject('chromium')) };
  } catch (error) {
    await stopAndRemove(server);
    throw error;
  }
}

/** Closes what startWithBrowser started; either may be unset when starting failed. */
export async function stopWithBrowser(server: StandaloneServer | undefined, browser: Browser | undefined): Promise<void> {
  await browser?.close();
  if (server) await stopAndRemove(server);
}
