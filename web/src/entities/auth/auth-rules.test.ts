import { describe, expect, it } from 'vitest';
import { passwordHints, passwordStrength, redirectTarget, strengthLevel, validateLogin, validateSignup } from './auth-rules';

describe('validateLogin (spec §5 order)', () => {
  it.each([
    ['', '', 'Please enter your email address'],
    ['   ', 'pw', 'Please enter your email address'],
    ['asha', '', 'Please enter a valid email address'],
    ['asha@x.in', '', 'Please enter your password'],
    ['asha@x.in', 'secret', null],
  ])('%j / %j → %j', (email, pw, expected) => {
    expect(validateLogin(email, pw)).toBe(expected);
  });
});

describe('validateSignup (spec §5 order)', () => {
  const ok = { name: 'Asha', email: 'a@b.in', password: 'password1', confirm: 'password1' };
  it('empty field first', () => {
    expect(validateSignup({ ...ok, name: ' ' })).toBe('Please fill in all fields');
    expect(validateSignup({ ...ok, email: '' })).toBe('Please fill in all fields');
    expect(validateSignup({ ...ok, password: '' })).toBe('Please fill in all fields');
    expect(validateSignup({ ...ok, confirm: '' })).toBe('Please fill in all fields');
  });
  it('then e-mail, length, match', () => {
    expect(validateSignup({ ...ok, email: 'ab.in', password: 'x' })).toBe('Please enter a valid email address');
    expect(validateSignup({ ...ok, password: 'short', confirm: 'other' })).toBe('Password must be at least 8 characters long');
    expect(validateSignup({ ...ok, confirm: 'password2' })).toBe('Passwords do not match');
    expect(validateSignup(ok)).toBeNull();
  });
});

describe('passwordStrength (spec §5)', () => {
  it.each([
    ['', 0],
    ['abc', 0],
    ['abcdefgh', 25],
    ['abcdefghijkl', 50],
    ['abcdefGH', 50],
    ['abcdefgh1', 37.5],
    ['abcdefgh!', 37.5],
    ['Abcdefghijk1!', 100],
    ['Ab1!', 50],
  ])('%j → %d', (pw, score) => {
    expect(passwordStrength(pw)).toBe(score);
  });
  it('is capped at 100', () => {
    expect(passwordStrength('Abcdefghijklmnop123!@#')).toBe(100);
  });
  it('levels: Weak < 33 red, Medium < 66 amber, else Strong green', () => {
    expect(strengthLevel(0)).toEqual({ label: 'Weak', tone: 'red' });
    expect(strengthLevel(32.9)).toEqual({ label: 'Weak', tone: 'red' });
    expect(strengthLevel(33)).toEqual({ label: 'Medium', tone: 'amber' });
    expect(strengthLevel(62.5)).toEqual({ label: 'Medium', tone: 'amber' });
    expect(strengthLevel(66)).toEqual({ label: 'Strong', tone: 'green' });
    expect(strengthLevel(100)).toEqual({ label: 'Strong', tone: 'green' });
  });
});

describe('passwordHints', () => {
  it('reports each hint live', () => {
    expect(passwordHints('abc').map((h) => h.met)).toEqual([false, false, false]);
    expect(passwordHints('Abcdefgh1').map((h) => h.met)).toEqual([true, true, true]);
    expect(passwordHints('abcdefgh1').map((h) => h.label)).toEqual(['At least 8 characters', 'Mix of uppercase and lowercase', 'Contains a number']);
  });
});

describe('redirectTarget', () => {
  it('uses a carried in-app path, else /my-home', () => {
    expect(redirectTarget({ from: '/workspace/settings?tab=1#logo' })).toBe('/workspace/settings?tab=1#logo');
    expect(redirectTarget(null)).toBe('/my-home');
    expect(redirectTarget({ from: 'https://evil.example' })).toBe('/my-home');
    expect(redirectTarget({ from: '//evil.example' })).toBe('/my-home');
    expect(redirectTarget({ from: '/login' })).toBe('/my-home');
  });
});
