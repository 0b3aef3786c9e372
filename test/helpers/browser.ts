import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** A headless Chromium on PATH, if there is one (Debian's package `chromium`). */
export function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of (process.env.PATH ?? '').split(delimiter))
      if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** A port nobody listens on now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A browser with a throwaway profile, and the pages' requests that left this machine. */
export interface TestBrowser {
  browser: Browser;
  /** A new page whose every request to a host other than localhost/127.0.0.1 is refused and recorded in `offsite`. */
  page(width?: number, height?: number): Promise<Page>;
  offsite: string[];
  close(): Promise<void>;
}

/** Starts headless Chromium through puppeteer-core (which downloads nothing). */
export async function launchBrowser(executablePath: string): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'raymond-chromium-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      '--hide-scrollbars',
      '--force-color-profile=srgb',
      '--disable-dev-shm-usage',
    ],
  });
  const offsite: string[] = [];
  return {
    browser,
    offsite,
    async page(width = 1400, height = 1000) {
      const page = await browser.newPage();
      await page.setViewport({ width, height });
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const host = new URL(req.url()).hostname;
        if (req.url().startsWith('data:') || host === 'localhost' || host === '127.0.0.1')
          return void req.continue();
        offsite.push(req.url());
        void req.abort();
      });
      return page;
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
