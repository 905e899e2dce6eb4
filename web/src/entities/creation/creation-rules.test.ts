import { describe, expect, it } from 'vitest';
import {
  typicalDurationSentence,
  activeStepIndex,
  contentTypeOf,
  estimateSecondsLeft,
  formatEstimate,
  formatMegabytes,
  MAX_UPLOAD_BYTES,
  MSG_INVALID_TYPE,
  MSG_PROCESS_FAILED,
  MSG_TOO_LARGE,
  MSG_UNREADABLE,
  pollOutcome,
  stepStates,
  validateImageFile,
} from './creation-rules';

const f = (name: string, type: string, size = 1000) => ({ name, type, size });

describe('upload validation', () => {
  it('accepts JPEG, PNG and WebP by MIME type', () => {
    for (const t of ['image/jpeg', 'image/jpg', 'image/png', 'image/webp']) expect(validateImageFile(f('x', t))).toBeNull();
  });
  it('falls back to the extension when the browser gives no type', () => {
    expect(validateImageFile(f('photo.JPG', ''))).toBeNull();
    expect(validateImageFile(f('photo.webp', 'application/octet-stream'))).toBeNull();
    expect(validateImageFile(f('photo.gif', ''))).toBe(MSG_INVALID_TYPE);
    expect(validateImageFile(f('noext', ''))).toBe(MSG_INVALID_TYPE);
  });
  it('rejects other types even with an image extension', () => {
    expect(validateImageFile(f('a.png', 'image/gif'))).toBe(MSG_INVALID_TYPE);
    expect(validateImageFile(f('a.pdf', 'application/pdf'))).toBe(MSG_INVALID_TYPE);
    expect(validateImageFile(f('a.heic', 'image/heic'))).toBe(MSG_INVALID_TYPE);
  });
  it('allows exactly 10MB and rejects one byte more', () => {
    expect(MAX_UPLOAD_BYTES).toBe(10485760);
    expect(validateImageFile(f('a.png', 'image/png', 10485760))).toBeNull();
    expect(validateImageFile(f('a.png', 'image/png', 10485761))).toBe(MSG_TOO_LARGE);
  });
  it('uses the spec messages word for word', () => {
    expect(MSG_TOO_LARGE).toBe('File is too large. Please select an image under 10MB.');
    expect(MSG_INVALID_TYPE).toBe('Invalid file type. Please select a JPEG, PNG, or WebP image.');
    expect(MSG_UNREADABLE).toBe('Unable to upload this file. Please try another image.');
  });
  it('anything unreadable gets the generic message', () => {
    expect(validateImageFile(null)).toBe(MSG_UNREADABLE);
    expect(validateImageFile(f('a.png', 'image/png', 0))).toBe(MSG_UNREADABLE);
    expect(validateImageFile(f('a.png', 'image/png', Number.NaN))).toBe(MSG_UNREADABLE);
  });
  it('content type from the file, else the extension', () => {
    expect(contentTypeOf(f('a.bin', 'image/png'))).toBe('image/png');
    expect(contentTypeOf(f('a.jpg', 'image/jpg'))).toBe('image/jpeg');
    expect(contentTypeOf(f('a.JPEG', ''))).toBe('image/jpeg');
    expect(contentTypeOf(f('a.webp', ''))).toBe('image/webp');
    expect(contentTypeOf(f('a', ''))).toBe('application/octet-stream');
  });
  it('size in MB', () => {
    expect(formatMegabytes(2_464_153)).toBe('2.35 MB');
    expect(formatMegabytes(10485760)).toBe('10.00 MB');
    expect(formatMegabytes(500)).toBe('< 0.01 MB');
  });
});

describe('job polling outcome', () => {
  it('completed goes to the preview', () => expect(pollOutcome({ status: 'completed' }, undefined)).toEqual({ kind: 'preview' }));
  it('failed shows the server message, else the fallback, then goes home', () => {
    expect(pollOutcome({ status: 'failed', error: 'No product found in the photo.' }, undefined)).toEqual({ kind: 'failed', message: 'No product found in the photo.' });
    expect(pollOutcome({ status: 'failed', error: '' }, undefined)).toEqual({ kind: 'failed', message: MSG_PROCESS_FAILED });
  });
  it('a network error goes home even with stale data', () => {
    expect(pollOutcome({ status: 'processing' }, { status: 'FETCH_ERROR' })).toEqual({ kind: 'home' });
    expect(pollOutcome(undefined, { status: 404 })).toEqual({ kind: 'home' });
  });
  it('queued, processing and unknown keep polling', () => {
    expect(pollOutcome({ status: 'queued' }, undefined)).toEqual({ kind: 'wait' });
    expect(pollOutcome({ status: 'processing' }, undefined)).toEqual({ kind: 'wait' });
    expect(pollOutcome(undefined, undefined)).toEqual({ kind: 'wait' });
  });
});

describe('progress and steps', () => {
  it('the server step wins over progress', () => {
    expect(activeStepIndex('processing', 'Assembling 3D Model', 5)).toBe(2);
    expect(activeStepIndex('processing', 'finalizing details', 10)).toBe(3);
  });
  it('without a step: progress / 25, capped at the last step', () => {
    expect(activeStepIndex('processing', null, 0)).toBe(0);
    expect(activeStepIndex('processing', undefined, 24)).toBe(0);
    expect(activeStepIndex('processing', '', 25)).toBe(1);
    expect(activeStepIndex('processing', 'Unknown', 74)).toBe(2);
    expect(activeStepIndex('processing', null, 100)).toBe(3);
    expect(activeStepIndex('processing', null, 250)).toBe(3);
  });
  it('step states', () => {
    expect(stepStates('processing', 'Deconstructing Components', 30)).toEqual(['done', 'active', 'pending', 'pending']);
    expect(stepStates('queued', null, 0)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(stepStates('completed', 'Finalizing Details', 100)).toEqual(['done', 'done', 'done', 'done']);
    expect(stepStates('failed', 'Assembling 3D Model', 60)).toEqual(['done', 'done', 'error', 'pending']);
  });
  it('time left comes from the observed rate', () => {
    expect(estimateSecondsLeft(null, { at: 0, progress: 10 })).toBeNull();
    expect(estimateSecondsLeft({ at: 0, progress: 10 }, { at: 500, progress: 12 })).toBeNull();
    expect(estimateSecondsLeft({ at: 0, progress: 10 }, { at: 10_000, progress: 10 })).toBeNull();
    // 20 points in 10 s → 2 points/s → 60 points left = 30 s.
    expect(estimateSecondsLeft({ at: 0, progress: 20 }, { at: 10_000, progress: 40 })).toBe(30);
    expect(estimateSecondsLeft({ at: 0, progress: 20 }, { at: 10_000, progress: 100 })).toBe(0);
  });
  it('estimate wording', () => {
    expect(formatEstimate(null, 'queued')).toBe('Waiting for a worker to pick up your photo…');
    expect(formatEstimate(null, 'queued', 'your videos')).toBe('Waiting for a worker to pick up your videos…');
    expect(formatEstimate(null, 'processing')).toBe('Estimating time left…');
    expect(formatEstimate(4, 'processing')).toBe('Almost there — a few seconds left.');
    expect(typicalDurationSentence(null)).toBe('');
    expect(typicalDurationSentence(0.8)).toBe('Builds here usually take about a second.');
    expect(typicalDurationSentence(2.6)).toBe('Builds here usually take about 3 seconds.');
    expect(typicalDurationSentence(200)).toBe('Builds here usually take about 3 minutes.');
    expect(formatEstimate(31, 'processing')).toBe('About 35 seconds left.');
    expect(formatEstimate(100, 'processing')).toBe('About 2 minutes left.');
  });
});
