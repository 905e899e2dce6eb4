import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import ApiDocsPage, { OPENAPI_URL } from './api-docs-page';

const doc = {
  openapi: '3.1.0',
  info: { title: 'Photo3D API', version: '1.0.0', description: 'Every JSON answer is an envelope.' },
  tags: [{ name: 'Jobs', description: 'Builds.' }, { name: 'Auth' }],
  paths: {
    '/api/jobs': {
      post: {
        operationId: 'createJob',
        tags: ['Jobs'],
        summary: 'Start a 3D build',
        security: [{ bearer: ['write'] }],
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { imageURL: { type: 'string' } } },
              examples: { ok: { value: { imageURL: 'https://example.com/p.png' } } },
            },
          },
        },
        responses: { '201': { description: 'The new job.' } },
      },
    },
    '/api/config': { get: { operationId: 'getConfig', tags: ['Auth'], summary: 'Public configuration', security: [], responses: {} } },
  },
};

afterEach(() => vi.unstubAllGlobals());

describe('ApiDocsPage', () => {
  it('renders the served document: tags, operations with anchors, access and examples; search narrows it', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify(doc), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetchMock);
    render(<ApiDocsPage />);

    expect(await screen.findByRole('heading', { name: 'Photo3D API' })).toBeInTheDocument();
    expect(fetchMock).toHaveBeenCalledWith(OPENAPI_URL, expect.anything());
    expect(screen.getByText('Every JSON answer is an envelope.')).toBeInTheDocument();
    const op = document.getElementById('op-createJob')!;
    expect(within(op).getByText('/api/jobs')).toBeInTheDocument();
    expect(within(op).getByText('API key scope: write')).toBeInTheDocument();
    expect(within(op).getByText(/"imageURL": "https:\/\/example.com\/p.png"/)).toBeInTheDocument();
    expect(within(document.getElementById('op-getConfig')!).getByText('Public')).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Operations' })).toHaveTextContent('POST /api/jobs');
    expect(screen.getByText('2 operations')).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('Search operations'), 'config');
    expect(screen.getByText('1 operation')).toBeInTheDocument();
    expect(document.getElementById('op-createJob')).toBeNull();
    expect(document.getElementById('op-getConfig')).not.toBeNull();
  });

  it('says so when the document cannot be loaded', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('nope', { status: 503 })));
    render(<ApiDocsPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('The API reference could not be loaded (HTTP 503).');
  });
});
