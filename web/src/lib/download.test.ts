import { describe, expect, it } from 'vitest';
import { attachmentName, isApiURL } from './download';

describe('download', () => {
  it('sends the token only to routes under the configured API base', () => {
    const here = 'http://127.0.0.1:8080/workspace/analytics';
    expect(isApiURL('/api/analytics/export.csv', '/api', here)).toBe(true);
    expect(isApiURL('http://127.0.0.1:8080/blobs/k?signature=x', '/api', here)).toBe(false);
    expect(isApiURL('http://localhost:8080/api/x', '/api', here)).toBe(false);
    expect(isApiURL('https://api.example.com/v1/analytics/export.csv', 'https://api.example.com/v1', here)).toBe(true);
    expect(isApiURL('/api/x', 'https://api.example.com/v1', here)).toBe(false);
    expect(isApiURL('/apix/secret', '/api', here)).toBe(false);
  });
  it('reads the file name the server gives', () => {
    expect(attachmentName('attachment; filename="analytics.csv"')).toBe('analytics.csv');
    expect(attachmentName("attachment; filename*=UTF-8''leads%20vase.csv")).toBe('leads vase.csv');
    expect(attachmentName(null)).toBeNull();
  });
});
