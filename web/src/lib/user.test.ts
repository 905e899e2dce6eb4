import { describe, expect, it } from 'vitest';
import { avatarInitial, greetingName, initials, mergeProfile, normalizeUser, rebuildName, signupName } from './user';

describe('normalizeUser', () => {
  it('keeps firstName and lastName when present', () => {
    expect(normalizeUser({ id: 1, email: 'a@b.c', name: 'X Y', firstName: 'Asha', lastName: 'Rao', avatarUrl: null })).toMatchObject({
      id: '1',
      firstName: 'Asha',
      lastName: 'Rao',
      name: 'X Y',
    });
  });
  it('splits name on whitespace when first and last are absent', () => {
    expect(normalizeUser({ email: 'a@b.c', name: 'Mary  Ann   Smith' })).toMatchObject({ firstName: 'Mary', lastName: 'Ann Smith' });
  });
  it('uses the e-mail local part as firstName without any name', () => {
    expect(normalizeUser({ email: 'jane.doe@shop.in' })).toMatchObject({ firstName: 'jane.doe', lastName: '', name: 'jane.doe' });
  });
  it('rejects non-objects and defaults avatar to null', () => {
    expect(normalizeUser(null)).toBeNull();
    expect(normalizeUser('x')).toBeNull();
    expect(normalizeUser({ email: 'a@b', avatarUrl: '' })?.avatarUrl).toBeNull();
  });
});

describe('greetingName', () => {
  it('prefers firstName, then first word of name, then e-mail local part, else Guest', () => {
    expect(greetingName({ firstName: 'Asha', name: 'Other Name', email: 'z@z' })).toBe('Asha');
    expect(greetingName({ firstName: '', name: 'Ravi Kumar', email: 'z@z' })).toBe('Ravi');
    expect(greetingName({ firstName: '', name: '', email: 'meera@shop.in' })).toBe('meera');
    expect(greetingName({ firstName: '', name: '', email: '' })).toBe('Guest');
    expect(greetingName(null)).toBe('Guest');
  });
});

describe('avatarInitial', () => {
  it('is the uppercase first letter, falling back to R', () => {
    expect(avatarInitial({ firstName: 'asha' })).toBe('A');
    expect(avatarInitial({ email: 'zed@x.y' })).toBe('Z');
    expect(avatarInitial({})).toBe('R');
    expect(avatarInitial(null)).toBe('R');
  });
});

describe('names', () => {
  it('rebuilds the full name from trimmed parts', () => {
    expect(rebuildName(' Asha ', ' Rao ')).toBe('Asha Rao');
    expect(rebuildName('Asha', '')).toBe('Asha');
  });
  it('initials from first and last name, else the e-mail', () => {
    expect(initials('asha', 'rao')).toBe('AR');
    expect(initials('', '', 'kiran@x.y')).toBe('K');
    expect(initials('', '')).toBe('R');
  });
  it('signup uses the trimmed name, else the e-mail local part', () => {
    expect(signupName('  Asha Rao ', 'a@b.c')).toBe('Asha Rao');
    expect(signupName('   ', 'asha.rao@b.c')).toBe('asha.rao');
  });
  it('profile merge trims and rebuilds the name', () => {
    const u = normalizeUser({ id: 'u', email: 'a@b.c', name: 'Old Name', firstName: 'Old', lastName: 'Name' })!;
    expect(mergeProfile(u, { firstName: ' New ', lastName: ' Person ', avatarUrl: '/a.png' })).toMatchObject({
      firstName: 'New',
      lastName: 'Person',
      name: 'New Person',
      avatarUrl: '/a.png',
      email: 'a@b.c',
    });
  });
});
