import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, stubFetch } from '../../test/render';
import DemoPage from './demo-page';

vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

afterEach(() => vi.unstubAllGlobals());

const sample = (id: string) => ({ id, meshUrl: `/demo/${id}/model.glb`, imageUrl: `/demo/${id}/image.png` });

describe('demo viewer', () => {
  it('defaults to bed, with spin on, exposure 1 and shadow 0.6', async () => {
    stubFetch({ 'GET /demo/index.json': () => new Response(JSON.stringify([sample('table'), sample('exploded-bed'), sample('bed')])) });
    renderRoutes([{ path: '/demo', element: <DemoPage /> }], ['/demo']);
    const select = await screen.findByTestId('demo-select');
    expect(select).toHaveValue('bed');
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Table', 'Exploded Bed', 'Bed']);
    // waitFor retries only a callback that throws: a null element must fail, not resolve.
    const viewer = await waitFor(() => {
      const el = document.querySelector('model-viewer');
      expect(el).not.toBeNull();
      return el as HTMLElement;
    });
    expect(viewer).toHaveAttribute('src', '/demo/bed/model.glb');
    expect(viewer).toHaveAttribute('auto-rotate');
    expect(viewer).toHaveAttribute('exposure', '1');
    expect(viewer).toHaveAttribute('shadow-intensity', '0.6');
    expect(viewer).toHaveAttribute('ar-modes', 'webxr scene-viewer quick-look');
    expect(screen.getByRole('img', { name: 'Reference image: Bed' })).toHaveAttribute('src', '/demo/bed/image.png');
    // The samples are procedural models with software-rendered reference images (internal/samples):
    // the page must not call them photos turned into 3D.
    expect(document.body.textContent).not.toMatch(/from one photo|reference photo/i);
    expect(screen.getByText(/^Sample models generated in code, each beside a software-rendered reference image/)).toBeInTheDocument();
    expect(screen.getByText('Bed · reference image (software render of the sample model)')).toBeInTheDocument();

    const exposure = screen.getByRole('slider', { name: 'Exposure' });
    expect(exposure).toHaveAttribute('min', '0.6');
    expect(exposure).toHaveAttribute('max', '1.6');
    expect(exposure).toHaveAttribute('step', '0.05');
    const shadow = screen.getByRole('slider', { name: 'Shadow' });
    expect(shadow).toHaveAttribute('min', '0');
    expect(shadow).toHaveAttribute('max', '1');

    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'On' }));
    expect(screen.getByRole('button', { name: 'Off' })).toHaveAttribute('aria-pressed', 'false');
    expect(document.querySelector('model-viewer')).not.toHaveAttribute('auto-rotate');
    await user.click(screen.getByRole('button', { name: 'Light' }));
    expect(screen.getByRole('button', { name: 'White' })).toHaveAttribute('aria-pressed', 'true');
    await user.selectOptions(select, 'table');
    await waitFor(() => expect(document.querySelector('model-viewer')).toHaveAttribute('src', '/demo/table/model.glb'));
  });

  // Spec §2: "When no samples exist, hints to add demo folders are shown." Issue 19 item 5: the
  // hint says how the samples are really made: `worker samples`.
  it('with no samples, says to generate them with worker samples', async () => {
    stubFetch({ 'GET /demo/index.json': () => new Response('<!doctype html>', { status: 200 }) });
    renderRoutes([{ path: '/demo', element: <DemoPage /> }], ['/demo']);
    const hint = await screen.findByText(/^No demo models found\./);
    expect(hint).toHaveTextContent('Run go run ./cmd/worker samples (or bin/worker samples) to generate them');
    expect(hint).toHaveTextContent("model.glb and reference.png, and index.json, into web/public/demo/");
  });
});
