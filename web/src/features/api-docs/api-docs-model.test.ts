import { describe, expect, it } from 'vitest';
import { buildReference, filterReference, typeText, type OpenApiDoc } from './api-docs-model';

const doc: OpenApiDoc = {
  info: { title: 'Photo3D API', version: '1.0.0' },
  tags: [
    { name: 'Jobs', description: 'Builds.' },
    { name: 'Auth', description: 'Sign-in.' },
  ],
  paths: {
    '/api/jobs/{id}': {
      get: {
        operationId: 'getJob',
        tags: ['Jobs'],
        summary: 'A build',
        security: [{ bearer: ['read'] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'Success.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { success: { const: true }, data: { $ref: '#/components/schemas/Job' } },
                },
                examples: { ok: { value: { success: true, data: { id: 'j1', status: 'done' } } } },
              },
            },
          },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
    },
    '/api/jobs': {
      post: {
        operationId: 'createJob',
        tags: ['Jobs'],
        summary: 'Start a build',
        security: [{ bearer: ['write'] }],
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', required: ['imageURL'], properties: { imageURL: { type: 'string', description: 'The photo.' } } },
              examples: { ok: { value: { imageURL: 'https://x/p.png' } } },
            },
          },
        },
        responses: { '201': { description: 'Created.' } },
      },
    },
    '/api/config': {
      get: { operationId: 'getConfig', tags: ['Auth'], summary: 'Public configuration', security: [], responses: {} },
    },
  },
  components: {
    schemas: {
      Job: {
        type: 'object',
        required: ['id', 'status'],
        properties: {
          id: { type: 'string' },
          status: { type: 'string', enum: ['pending', 'done'] },
          fidelity: { type: ['integer', 'null'] },
          parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } },
        },
      },
    },
    responses: { NotFound: { description: 'No such item.' } },
  },
};

describe('buildReference', () => {
  it('groups operations by tag in the document order, with access, fields and examples', () => {
    const ref = buildReference(doc);
    expect(ref.map((t) => t.name)).toEqual(['Jobs', 'Auth']);
    const [create, get] = ref[0].operations;
    expect([create.method, create.path, create.access]).toEqual(['POST', '/api/jobs', 'write']);
    expect(create.request?.fields).toEqual([{ name: 'imageURL', type: 'string', required: true, description: 'The photo.' }]);
    expect(JSON.parse(create.request?.example ?? '')).toEqual({ imageURL: 'https://x/p.png' });
    expect(get.anchor).toBe('op-getJob');
    expect(get.params[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    // The success envelope is unwrapped: the page documents data's fields.
    const ok = get.responses.find((r) => r.status === '200');
    expect(ok?.body?.type).toBe('Job');
    expect(ok?.body?.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      'id:string',
      'status:"pending" | "done"',
      'fidelity:integer | null',
      'parts:array of Part',
    ]);
    expect(get.responses.find((r) => r.status === '404')?.description).toBe('No such item.');
    expect(ref[1].operations[0].access).toBe('public');
  });

  it('types read as written', () => {
    expect(typeText(doc, { type: 'string', format: 'date-time' })).toBe('string (date-time)');
    expect(typeText(doc, { anyOf: [{ $ref: '#/components/schemas/Timestamp' }, { type: 'null' }] })).toBe('Timestamp | null');
    expect(typeText(doc, undefined)).toBe('any');
  });
});

describe('filterReference', () => {
  it('keeps operations matching every word in method, path, summary, id or tag', () => {
    const ref = buildReference(doc);
    expect(filterReference(ref, 'post jobs').flatMap((t) => t.operations.map((o) => o.id))).toEqual(['createJob']);
    expect(filterReference(ref, 'configuration').map((t) => t.name)).toEqual(['Auth']);
    expect(filterReference(ref, 'nothing-like-this')).toEqual([]);
    expect(filterReference(ref, '  ')).toBe(ref);
  });
});

describe('the real document', () => {
  // The fragments the server merges (internal/apidoc): every operation gets a unique anchor and
  // lands under a declared tag, so the page can show all of them.
  const fragments = import.meta.glob<OpenApiDoc>('../../../../internal/apidoc/fragments/*.json', { eager: true, import: 'default' });
  const real: OpenApiDoc = { tags: [], paths: {}, components: { schemas: {} } };
  for (const frag of Object.values(fragments)) {
    real.tags!.push(...(frag.tags ?? []));
    for (const [p, item] of Object.entries(frag.paths ?? {})) real.paths![p] = { ...real.paths![p], ...item };
  }

  it('renders every operation once, under a declared tag', () => {
    expect(Object.keys(fragments).length).toBeGreaterThan(5);
    const ref = buildReference(real);
    const ops = ref.flatMap((t) => t.operations);
    const total = Object.values(real.paths!).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(ops).toHaveLength(total);
    expect(new Set(ops.map((o) => o.anchor)).size).toBe(total);
    expect(ref.map((t) => t.name)).not.toContain('Other');
    expect(ops.find((o) => o.id === 'createJob')?.request?.example).toContain('imageURL');
  });
});
