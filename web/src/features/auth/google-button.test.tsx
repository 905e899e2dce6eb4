import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStore } from '../../app/store';
import SignupPage from './signup-page';

afterEach(() => document.querySelectorAll('script[src*="accounts.google.com"]').forEach((s) => s.remove()));

describe('Google sign-up', () => {
  it('with a client id: loads the Google script and shows the divider', async () => {
    const router = createMemoryRouter([{ path: '/signup', element: <SignupPage clientId="123.apps.googleusercontent.com" /> }], { initialEntries: ['/signup'] });
    render(
      <Provider store={makeStore()}>
        <RouterProvider router={router} />
      </Provider>,
    );
    expect(await screen.findByText('or continue with email')).toBeInTheDocument();
    expect(document.querySelector('script[src="https://accounts.google.com/gsi/client"]')).not.toBeNull();
  });
});
