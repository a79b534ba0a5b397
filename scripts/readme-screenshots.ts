// Regenerates the README's two images from a real run, never by hand: a `sandbay server` on the linux
// driver (its own data dir and ports), the README's walkthrough blocks pasted as a user would, then
// - docs/img/desktop.png: the sandbox's desktop after step 4 (the terminal it started and typed into),
// - docs/img/live-view.png: the viewer link of step 5 opened in headless Chromium.
//
//   node scripts/readme-screenshots.ts        (as root, like `npm start`; about a minute)
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { launchIsolatedChromium } from '../test/support/browser.ts';
import { readmeCheckout, Shell, walkthroughBlocks } from '../test/support/readme.ts';
import { startServerProcess, stopServerProcess } from '../test/support/server-process.ts';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs', 'img');
/** The images' width in the README (half-size PNGs with a palette stay small). */
const WIDTH = 960;

async function writePng(file: string, png: Buffer): Promise<void> {
  const small = await sharp(png).resize({ width: WIDTH }).png({ palette: true, quality: 90 }).toBuffer();
  await writeFile(join(OUT, file), small);
  console.log(`${join('docs', 'img', file)}: ${(small.length / 1024).toFixed(0)} KiB`);
}

const scratch = await mkdtemp(join(tmpdir(), 'sandbay-readme-shots-'));
const server = await startServerProcess(join(scratch, 'server-data'));
const work = await readmeCheckout(ROOT, scratch, join(scratch, 'server-data'));
const shell = new Shell(work, {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  SANDBAY_URL: server.adminUrl,
});
const port = new URL(server.url).port;
const blocks = walkthroughBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'), port);
// In a network namespace of its own: a VM booting meanwhile would fail its page loads (ERR_NETWORK_CHANGED).
const isolated = await launchIsolatedChromium(
  [server.url, server.adminUrl].map((u) => Number(new URL(u).port)),
);
const browser = isolated.browser;
try {
  await mkdir(OUT, { recursive: true });
  const run = async (i: number): Promise<string> => {
    const r = await shell.run(blocks[i] as string);
    if (r.status !== 0) throw new Error(`README block ${i} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  };
  for (let i = 0; i <= 4; i++) await run(i);
  await writePng('desktop.png', await readFile(join(work, 'after.png')));

  const link = (await run(5)).trim();
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(link);
  await page.locator('#status[data-state="connected"]').waitFor({ timeout: 30_000 });
  // Connected is not drawn: wait until the canvas shows the desktop (some pixel not black).
  await page.waitForFunction(
    `(() => { const c = document.querySelector('#screen canvas'); if (!c) return false;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4 * 97) if (d[i] + d[i + 1] + d[i + 2] > 60) return true;
      return false; })()`,
    undefined,
    { timeout: 30_000 },
  );
  await writePng('live-view.png', await page.screenshot());
  await page.close();
  await run(6);
} finally {
  await isolated.close();
  shell.close();
  await stopServerProcess(server);
  await rm(scratch, { recursive: true, force: true });
}
