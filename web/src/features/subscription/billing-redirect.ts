/**
 * Leaving the app for a payment provider's page (Stripe Checkout or the Customer Portal). An
 * object, so tests can watch where the page sends the browser without leaving jsdom.
 */
export const navigation = {
  goTo(url: string) {
    window.location.assign(url);
  },
};
