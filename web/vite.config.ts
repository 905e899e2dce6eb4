/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { envMaps } from './scripts/env-maps.mjs';

/**
 * The unit-test files that replace a module with vi.mock, or a custom element with a stand-in
 * (customElements.define). Vitest gives every file a fresh jsdom and module registry by default,
 * and on a 2-core machine that costs more than the tests themselves (194 s wall and 367 CPU-s for
 * 81 files, quiet). The other files share one environment per worker instead; these keep their
 * own, since their mocked module would otherwise meet the real copy another file already
 * imported, and their stand-in element the real one another file already registered (the
 * registry of custom elements cannot be undone).
 */
function filesNeedingTheirOwnEnvironment(): string[] {
  // Read from the config's own folder, so the list does not depend on where Vitest was started;
  // the include patterns it becomes are relative to the project root, which is this folder.
  const src = fileURLToPath(new URL('./src', import.meta.url));
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.test\.tsx?$/.test(f) && /vi\.mock\(|customElements\.define\(/.test(readFileSync(`${src}/${f}`, 'utf8')))
    .map((f) => `src/${f}`.replaceAll('\\', '/'));
}
const mockingTestFiles = filesNeedingTheirOwnEnvironment();

// The Go API serves the built SPA in production; in development Vite proxies
// every server-owned path to it so the browser sees one origin.
const apiTarget = process.env.API_URL ?? 'http://127.0.0.1:8080';
const proxied = ['/api', '/v', '/embed', '/blobs'];

export default defineConfig({
  plugins: [
    react(),
    envMaps(),
    {
      // emptyOutDir removes the committed dist/.keep that lets `go build` embed
      // dist on a fresh clone (web/embed.go); put it back after every build.
      name: 'keep-dist-placeholder',
      apply: 'build',
      closeBundle() {
        writeFileSync(fileURLToPath(new URL('./dist/.keep', import.meta.url)), '');
      },
    },
  ],
  server: {
    proxy: Object.fromEntries(proxied.map((p) => [p, { target: apiTarget, changeOrigin: false }])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // scripts/route-size.mjs reads the manifest to total the JS a route loads.
    manifest: true,
    rolldownOptions: {
      // The public share/embed pages (served by the api, not the SPA) load
      // their own entry; web/manifest.go looks its files up in the manifest.
      input: {
        index: 'index.html',
        'public-viewer': 'src/public-viewer/viewer.ts',
        'public-viewer-product': 'src/public-viewer/product.ts',
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: false,
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    restoreMocks: true,
    // Lazy pages and jsdom's role queries on a busy 2-core machine: the demo page's test took
    // 13.6 s there. Only a failing test waits this long; a passing one is as fast as before.
    testTimeout: 30_000,
    // Vitest's default is one worker fewer than the cores: one on a 2-core CI machine, leaving a
    // core idle while jsdom files run one at a time. Every core: 230 s became about half.
    maxWorkers: availableParallelism(),
    projects: [
      { extends: true, test: { name: 'mocks', include: mockingTestFiles, isolate: true } },
      {
        extends: true,
        test: { name: 'shared', include: ['src/**/*.test.{ts,tsx}'], exclude: mockingTestFiles, isolate: false },
      },
    ],
  },
});
