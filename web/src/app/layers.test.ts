import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { checkLayers, violation } from '../../scripts/layers.mjs';

// The one-way rule of web/scripts/layers.mjs, run by `make test` through
// Vitest: a feature that imports another feature, or a shared layer that
// reaches up into features or app, fails the build with the file and line.
describe('web layers', () => {
  it('every import in src follows lib → components → entities → features → app', () => {
    const found = checkLayers();
    expect(found.map((v: { file: string; line: number; target: string; why: string }) => `src/${v.file}:${v.line} → src/${v.target}: ${v.why}`)).toEqual([]);
  });

  it('refuses a feature importing another feature, and shared layers reaching up', () => {
    expect(violation('features/products/a.tsx', 'features/analytics/b.tsx', false)).toMatch(/feature "products" imports feature "analytics"/);
    expect(violation('entities/product/a.ts', 'features/products/b.tsx', false)).toMatch(/entities may not import features/);
    expect(violation('components/a.tsx', 'entities/product/b.ts', false)).toMatch(/components may not import entities/);
    expect(violation('lib/a.ts', 'app/store.ts', false)).toMatch(/lib may not import app/);
    expect(violation('features/products/a.tsx', 'app/store.ts', false)).toMatch(/features may not import app/);
  });

  it('allows the downward imports, a feature importing itself, and tests composing the app', () => {
    expect(violation('features/products/a.tsx', 'features/products/b.tsx', false)).toBe('');
    expect(violation('features/products/a.tsx', 'entities/product/b.ts', false)).toBe('');
    expect(violation('entities/product/a.ts', 'entities/creation/b.ts', false)).toBe('');
    expect(violation('app/routes.tsx', 'features/products/b.tsx', false)).toBe('');
    expect(violation('features/products/a.test.tsx', 'app/store.ts', true)).toBe('');
    expect(violation('features/products/a.test.tsx', 'features/analytics/b.tsx', true)).toMatch(/imports feature/);
  });
});
