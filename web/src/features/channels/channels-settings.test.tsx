import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { stubFetch } from '../../test/render';
import { ChannelsSettings } from './channels-settings';

afterEach(() => vi.unstubAllGlobals());

describe('ChannelsSettings', () => {
  it('shows the feed URL and rotates it', async () => {
    let token = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const { calls } = stubFetch({
      'GET /api/channels/google-feed': () => ({ url: `https://p3d.example/feeds/${token}/google.xml` }),
      'POST /api/channels/google-feed/rotate': () => {
        token = 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
        return { url: `https://p3d.example/feeds/${token}/google.xml` };
      },
    });
    render(
      <Provider store={makeStore()}>
        <ChannelsSettings />
      </Provider>,
    );
    expect(await screen.findByDisplayValue('https://p3d.example/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/google.xml')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'New URL' }));
    expect(await screen.findByText(/the old one no longer works/)).toBeInTheDocument();
    expect(await screen.findByDisplayValue('https://p3d.example/feeds/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB/google.xml')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });
});
