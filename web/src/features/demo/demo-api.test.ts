import { describe, expect, it } from 'vitest';
import { defaultSample, demoDisplayName, parseDemoIndex } from './demo-api';

describe('demo samples', () => {
  it('display name from the folder id', () => {
    expect(demoDisplayName('exploded_bed')).toBe('Exploded Bed');
    expect(demoDisplayName('wall-bed')).toBe('Wall Bed');
    expect(demoDisplayName('puffin')).toBe('Puffin');
  });
  it('parses only well-formed entries', () => {
    expect(parseDemoIndex('<html>')).toEqual([]);
    expect(parseDemoIndex([{ id: 'table', meshUrl: '/demo/table/m.glb', imageUrl: '/demo/table/i.png' }, { id: 3 }])).toEqual([
      { id: 'table', name: 'Table', meshUrl: '/demo/table/m.glb', imageUrl: '/demo/table/i.png' },
    ]);
  });
  it('defaults to bed, else the first', () => {
    const s = (id: string) => ({ id, name: id, meshUrl: '', imageUrl: '' });
    expect(defaultSample([s('table'), s('bed')])?.id).toBe('bed');
    expect(defaultSample([s('table'), s('puffin')])?.id).toBe('table');
    expect(defaultSample([])).toBeUndefined();
  });
});
