// What every browser test starts from: the SPA built with the project's vite config, served by the
// real web server over the given services, and a Chromium page on it (1280x900, en-US) whose
// uncaught errors are collected, so a test can assert the page never threw.
import { rmSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Services } from '../../server/services-type';
import { buildClient, chromiumAvailable, CHROMIUM_PATH, launchBrowser } from './browser';
import { startTestServer, type TestServer } from './services';

export interface BrowserApp {
  server: TestServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Messages of the page's uncaught errors, in order. */
  pageErrors: string[];
  /** Closes the browser and the server and removes the built SPA. */
  close(): Promise<void>;
}

/** Builds the SPA while the services open, then starts the server and the browser; undoes what it did if a step fails. */
export async function startBrowserApp(services: Promise<Services>): Promise<BrowserApp> {
  if (!chromiumAvailable()) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium`);
  const built = await Promise.allSettled([buildClient(), services]);
  const clientDir = built[0].status === 'fulfilled' ? built[0].value : undefined;
  const removeClient = () => {
    if (clientDir) rmSync(clientDir, { recursive: true, force: true });
  };
  if (built[1].status === 'rejected' || !clientDir) {
    if (built[1].status === 'fulfilled') await built[1].value.store.close();
    removeClient();
    throw built[1].status === 'rejected' ? built[1].reason : (built[0] as PromiseRejectedResult).reason;
  }
  const server = await startTestServer(built[1].value, { clientDir });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const open = browser;
    return {
      server,
      browser: open,
      context,
      page,
      pageErrors,
      close: async () => {
        await open.close();
        await server.close();
        removeClient();
      },
    };
  } catch (error) {
    await browser?.close();
    await server.close();
    removeClient();
    throw error;
  }
}
