import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { signUpAndSignIn } from '../e2e/helpers';

/*
 * The browser's memory with a large spin set on the spin page (docs/benchmarks.md): 72 photos of
 * 12 MP (4000×3000 JPEG, about 3.6 MB each, drawn by Debian's ffmpeg; SPIN_PHOTOS=DIR uses your
 * own), dropped at once; every thumbnail scrolled into view and waited for. Prints the Chromium
 * processes' resident memory before the drop and once every thumbnail is shown, and how long
 * that took. Run: E2E_SPECS="--config playwright.bench.config.ts" ops/test.sh e2e
 */

/** Resident memory of the machine's Chromium processes, MB: the renderers, and all of them. */
function chromiumRSS(): { renderers: number; all: number } {
  let renderers = 0;
  let all = 0;
  for (const line of execSync('ps -eo rss=,args=').toString().split('\n')) {
    const [rss, ...args] = line.trim().split(/\s+/);
    const cmd = args.join(' ');
    if (!/chrom/i.test(cmd)) continue;
    const mb = (parseInt(rss, 10) || 0) / 1024;
    all += mb;
    if (cmd.includes('--type=renderer')) renderers += mb;
  }
  return { renderers: Math.round(renderers), all: Math.round(all) };
}

test('72 photos of 12 MP on the spin page: memory and time until every thumbnail shows', async ({ page }) => {
  test.setTimeout(600_000);
  let dir = process.env.SPIN_PHOTOS;
  const own = !dir;
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'spin-photos-'));
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=4000x3000:rate=1,noise=alls=12:allf=t', '-frames:v', '72', '-q:v', '3', join(dir, 'P%02d.jpg')]);
  }
  const files = readdirSync(dir)
    .filter((f) => /\.(jpe?g|png|webp)$/i.test(f))
    .sort()
    .map((f) => join(dir, f));
  try {
    await signUpAndSignIn(page, 'spinbench');
    await page.goto('/workspace/upload/spin');
    await expect(page.getByTestId('spin-input')).toBeAttached();
    const before = chromiumRSS();
    const t0 = Date.now();
    await page.getByTestId('spin-input').setInputFiles(files);
    const thumbs = page.getByTestId('spin-thumb');
    await expect(thumbs).toHaveCount(files.length, { timeout: 120_000 });
    for (let i = 0; i < files.length; i += 6) await thumbs.nth(i).scrollIntoViewIfNeeded();
    await thumbs.nth(files.length - 1).scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('[data-testid="spin-thumb"]')).every((t) => {
          const img = t.querySelector('img');
          return !!img && img.complete && img.naturalWidth > 0;
        }),
      null,
      { timeout: 300_000 },
    );
    const shownMs = Date.now() - t0;
    const after = chromiumRSS();
    const widths = await page.evaluate(() => [...new Set(Array.from(document.querySelectorAll('[data-testid="spin-thumb"] img')).map((i) => (i as HTMLImageElement).naturalWidth))]);
    console.log(JSON.stringify({ photos: files.length, thumbnailWidths: widths, shownMs, rssMB: { before, after, rendererGrowth: after.renderers - before.renderers } }));
  } finally {
    if (own) rmSync(dir, { recursive: true, force: true });
  }
});
