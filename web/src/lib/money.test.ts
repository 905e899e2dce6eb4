import { describe, expect, it } from 'vitest';
import { CURRENCIES, defaultCurrency, formatPrice, localeCurrency } from './money';

describe('prices for an Indian merchant (issue 29 item 20)', () => {
  it('formats with the locale: ₹899, never "INR 899.00"', () => {
    expect(formatPrice(899, 'INR', 'en-IN')).toBe('₹899');
    expect(formatPrice(899, 'INR')).toBe('₹899');
    expect(formatPrice(123456.5, 'INR', 'en-IN')).toBe('₹1,23,456.50');
    expect(formatPrice(129.5, 'USD', 'en-US')).toBe('$129.50');
    expect(formatPrice(1299, 'USD', 'en-US')).toBe('$1,299');
    expect(formatPrice(10, 'EUR', 'de-DE')).toBe('10\u00a0€');
  });
  it('defaults a new price to the currency the merchant already uses, else their locale’s', () => {
    expect(defaultCurrency(['INR', 'INR', 'USD'], 'en-US')).toBe('INR');
    expect(defaultCurrency([], 'en-IN')).toBe('INR');
    expect(defaultCurrency(['', 'usd?'], 'de-DE')).toBe('EUR');
    expect(defaultCurrency([], 'en')).toBe('USD');
    expect(localeCurrency('hi-IN')).toBe('INR');
  });
  it('offers common ISO 4217 codes, each once', () => {
    const codes = CURRENCIES.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual(expect.arrayContaining(['INR', 'USD', 'EUR', 'GBP', 'AED']));
    expect(codes.every((c) => /^[A-Z]{3}$/.test(c))).toBe(true);
  });
});
