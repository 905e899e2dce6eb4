import { describe, expect, it } from 'vitest';
import { priceLabel } from '../../entities/creation/more-angles';
import { MSG_INVALID_TYPE, MSG_TOO_LARGE } from '../../entities/creation/creation-rules';
import {
  buildLabel,
  coverageCaption,
  creditsLeftLabel,
  impliedAzimuths,
  largestGap,
  layoutFor,
  naturalCompare,
  proposeSplit,
  ringOf,
  sortByName,
  spinSetProblems,
  spinViewsLabel,
  uploadingLabel,
} from './spin-rules';

const png = (name: string, size = 1000) => ({ name, type: 'image/png', size });
const set = (n: number, prefix = 'P') => Array.from({ length: n }, (_, i) => png(`${prefix}${i + 1}.png`));

describe('natural order of file names', () => {
  it('puts P2 before P10, whatever the case, and numbers inside names in order', () => {
    const names = ['P10.jpg', 'p2.jpg', 'P1.jpg', 'P100.jpg', 'IMG_0009.JPG', 'IMG_0010.JPG', 'P02b.jpg'];
    expect(sortByName(names.map((name) => ({ name }))).map((f) => f.name)).toEqual([
      'IMG_0009.JPG',
      'IMG_0010.JPG',
      'P1.jpg',
      'p2.jpg',
      'P02b.jpg',
      'P10.jpg',
      'P100.jpg',
    ]);
  });
  it('is a stable total order: equal-looking names still compare', () => {
    expect(naturalCompare('a.png', 'A.png')).not.toBe(0);
    expect(naturalCompare('x', 'x')).toBe(0);
  });
});

describe('ring split proposal', () => {
  it('splits evenly, the first rings taking the remainder', () => {
    expect(proposeSplit(24, 2)).toEqual([12, 12]);
    expect(proposeSplit(25, 2)).toEqual([13, 12]);
    expect(proposeSplit(36, 3)).toEqual([12, 12, 12]);
    expect(proposeSplit(10, 3)).toEqual([4, 3, 3]);
    expect(proposeSplit(72, 1)).toEqual([72]);
  });
  it('keeps the heights the merchant set and gives new rings the defaults (0°, 30°, 60°)', () => {
    expect(layoutFor(24, 2)).toEqual([
      { photos: 12, elevation: 0 },
      { photos: 12, elevation: 30 },
    ]);
    expect(layoutFor(30, 3, [{ photos: 24, elevation: 5 }])).toEqual([
      { photos: 10, elevation: 5 },
      { photos: 10, elevation: 30 },
      { photos: 10, elevation: 60 },
    ]);
    expect(layoutFor(0, 1)).toEqual([{ photos: 12, elevation: 0 }]);
  });
  it('knows which ring a photo is in (rings are consecutive)', () => {
    const rings = layoutFor(24, 2);
    expect([0, 11, 12, 23, 24].map((i) => ringOf(i, rings))).toEqual([0, 0, 1, 1, -1]);
  });
});

describe('validation before anything is uploaded', () => {
  it('a good set has no problems; nothing is said before any photo is added', () => {
    expect(spinSetProblems(set(24), layoutFor(24, 2))).toEqual([]);
    expect(spinSetProblems([], layoutFor(0, 2))).toEqual([]);
  });
  it('7 photos: too few', () => {
    expect(spinSetProblems(set(7), [{ photos: 7, elevation: 0 }])).toEqual(['A spin set needs at least 8 photos; 7 photos are added.']);
  });
  it('73 photos: too many', () => {
    expect(spinSetProblems(set(73), layoutFor(73, 2))).toEqual(['A spin set takes at most 72 photos; 73 photos are added. Remove 1.']);
  });
  it('a ring under 4, and counts that do not add up', () => {
    expect(
      spinSetProblems(set(12), [
        { photos: 9, elevation: 0 },
        { photos: 3, elevation: 30 },
      ]),
    ).toEqual(['Ring 2 needs at least 4 photos; it has 3.']);
    expect(
      spinSetProblems(set(24), [
        { photos: 12, elevation: 0 },
        { photos: 10, elevation: 30 },
      ]),
    ).toEqual(['The rings add up to 22 photos, but 24 photos are added: change the counts so they match.']);
  });
  it('a camera height beyond ±80° and an empty count are refused', () => {
    expect(
      spinSetProblems(set(16), [
        { photos: 8, elevation: 0 },
        { photos: 8, elevation: 85 },
      ]),
    ).toEqual(['Ring 2: the camera height must be between -80° and 80°.']);
    expect(spinSetProblems(set(16), [{ photos: NaN, elevation: 0 }])).toEqual([
      'Ring 1 needs at least 4 photos; it has 0.',
      'The rings add up to 0 photos, but 16 photos are added: change the counts so they match.',
    ]);
  });
  it("each file is checked as the upload page checks it, and named", () => {
    const files = [...set(10), { name: 'notes.txt', type: 'text/plain', size: 10 }, png('huge.png', 10_485_761)];
    expect(spinSetProblems(files, layoutFor(12, 2))).toEqual([`notes.txt: ${MSG_INVALID_TYPE}`, `huge.png: ${MSG_TOO_LARGE}`]);
  });
});

describe('azimuth coverage', () => {
  it('ticks at 360°·i/n; the largest gap is one step', () => {
    expect(impliedAzimuths(4)).toEqual([0, 90, 180, 270]);
    expect(largestGap(impliedAzimuths(12))).toBe(30);
    expect(largestGap(impliedAzimuths(16))).toBe(22.5);
    expect(coverageCaption(12)).toBe('12 photos, largest gap 30°');
    expect(coverageCaption(7)).toBe('7 photos, largest gap 51.4°');
  });
  it('measures uneven angles, around the circle too', () => {
    expect(largestGap([0, 30, 60, 270])).toBe(210);
    expect(largestGap([350, 10, 180])).toBe(170);
    expect(largestGap([45])).toBe(360);
    expect(largestGap([])).toBe(360);
  });
});

describe('the words around the build', () => {
  it('price, as the four-photo path says it, and the button', () => {
    expect(priceLabel(24)).toBe('Uses 24 AI credits, one per photo');
    expect(buildLabel(24)).toBe('Build from 24 photos');
  });
  it('credits left, only when the app knows them', () => {
    expect(creditsLeftLabel(50)).toBe('You have 50 AI credits left.');
    expect(creditsLeftLabel(1)).toBe('You have 1 AI credit left.');
    expect(creditsLeftLabel(null)).toBe('');
    expect(creditsLeftLabel(undefined)).toBe('');
  });
  it('upload progress counts the photo being sent', () => {
    expect(uploadingLabel(0, 24)).toBe('Uploading 1 of 24');
    expect(uploadingLabel(6, 24)).toBe('Uploading 7 of 24');
    expect(uploadingLabel(24, 24)).toBe('Uploading 24 of 24');
  });
  it('the processing and preview line', () => {
    expect(spinViewsLabel(24, 2)).toBe('Built from 24 photos in 2 rings');
    expect(spinViewsLabel(36, 1)).toBe('Built from 36 photos in 1 ring');
  });
});
