/**
 * Fetches the processing page's code while the merchant's files upload, so the page changes as
 * soon as the build starts. Fetched only on navigation, on a loaded machine the finished form
 * stayed on screen for seconds after the address had moved to /processing/… (the spin-set
 * browser test, make test at 40d211e). A failed fetch is tried again by the route itself.
 */
export function prefetchProcessingPage(): void {
  import('./processing-page').catch(() => undefined);
}
