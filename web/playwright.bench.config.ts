import config from './playwright.config';

/**
 * Browser benchmarks: measurements, not tests, so `make test` does not run them. They use the
 * browser tests' stack and Chromium: `E2E_SPECS="--config playwright.bench.config.ts" ops/test.sh e2e`.
 */
export default { ...config, testDir: './bench', testMatch: '**/*.bench.ts', retries: 0 };
