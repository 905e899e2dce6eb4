import { defineConfig, devices } from '@playwright/test';
import { readdirSync, existsSync } from 'node:fs';

/**
 * Browser tests run against the real api + worker + Postgres started by
 * `make test-e2e` (ops/test.sh), which sets BASE_URL. They drive Debian's
 * Chromium; nothing is downloaded.
 */
const baseURL = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * WebGL without a GPU. Chromium's own software renderer (SwiftShader, which
 * --disable-gpu selects) spends about 14 CPU-seconds on the first frame of
 * every <model-viewer> page on a 2-core machine: most of the suite's time.
 * Mesa's llvmpipe behind ANGLE's GL-EGL backend draws the same pixels for
 * about 3 (ops/lib.sh need_mesa_gl installs it). It is blocklisted as a
 * software GPU, hence --ignore-gpu-blocklist. Without Mesa, SwiftShader.
 * --disable-gpu-compositing: the page is composited in software, so llvmpipe
 * draws only WebGL; the GPU process compositing every page frame through it
 * cost 14 % of the browser specs' CPU (a 16-test sample: 267 → 230 CPU-s).
 */
function mesaEGL(): boolean {
  if (process.env.E2E_GL === 'swiftshader') return false;
  try {
    return readdirSync('/usr/lib').some((d) => existsSync(`/usr/lib/${d}/libEGL_mesa.so.0`) && existsSync(`/usr/lib/${d}/dri/swrast_dri.so`));
  } catch {
    return false;
  }
}
const webglArgs = mesaEGL() ? ['--use-angle=gl-egl', '--ignore-gpu-blocklist', '--disable-gpu-compositing'] : ['--disable-gpu'];

export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // Two spec files at a time: one worker left 46 % of a 2-core machine idle while each test
  // waited on the api, the worker and Chromium (13.6 → 10.6 min). Every spec signs up its own
  // merchants, so files do not share state; E2E_WORKERS=1 runs them one by one.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  // ops/test.sh sets E2E_RETRIES=1: a test that passes only on its retry is reported as flaky
  // (make test prints the list) rather than failing a run on a busy machine.
  retries: Number(process.env.E2E_RETRIES ?? (process.env.CI ? 1 : 0)),
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  outputDir: 'test-results/output',
  use: {
    baseURL,
    // Every spinning <model-viewer> redraws each frame: about 1.4 CPU-cores of software WebGL
    // on a 2-core machine (13-16 CPU-s per 10 s, against 0.9-1.0 still), taken from the api,
    // the worker and the test. The viewers honour the system setting, so the suite asks for
    // reduced motion; e2e/reduced-motion.spec.ts checks the spin both ways.
    reducedMotion: 'reduce',
    // Recording a trace for every test (retain-on-failure) cost 13 % of the specs' CPU
    // (308 → 267 CPU-s on a 16-test sample); a failed test's retry records one instead.
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        ...webglArgs,
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 } } }],
});
