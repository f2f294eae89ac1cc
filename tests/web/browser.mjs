// The browser tests' harness: starts `trainbudget serve`, launches Debian's chromium (headless,
// driven by playwright-core), runs the test's body, and exits 1 if it threw, 0 otherwise, with the
// browser closed and the server stopped either way.
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

export async function runInBrowser(bin, body) {
  const server = await startServer(bin);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
  let failed = false;
  try {
    await body({ server, browser });
  } catch (e) {
    failed = true;
    console.error(e);
  } finally {
    await browser.close();
    server.stop();
  }
  process.exit(failed ? 1 : 0);
}
