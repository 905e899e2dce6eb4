import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Pages are lazy routes: on a busy machine their first import can take over the default 1 s
// of findBy*/waitFor, and a *ByRole query over a full page can take seconds on its own (the
// analytics page missed 5 s while Go tests and the harness smoke ran beside it). A found
// element still resolves at once; only a failure waits longer.
configure({ asyncUtilTimeout: 15_000 });

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  localStorage.clear();
});
