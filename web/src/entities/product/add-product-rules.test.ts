import { describe, expect, it } from 'vitest';
import { MSG_INVALID_TYPE, MSG_ONE_IMAGE, MSG_TOO_LARGE } from '../creation/creation-rules';
import type { Build } from './product-rules';
import {
  loadCreated,
  loadDraft,
  saveCreated,
  saveDraft,
  startingDraft,
  buildProgress,
  buildState,
  canAct,
  checkModelFiles,
  checkWizardPhoto,
  embedCodeFor,
  lockSummary,
  modalSteps,
  parseWizardQuery,
  wizardURL,
} from './add-product-rules';

const build = (over: Partial<Build> = {}): Build => ({ jobId: 'j1', status: 'processing', failureReason: '', progress: null, stage: '', ...over });

describe('wizard rules', () => {
  it('keeps step and product in the URL, and starts over when a product step has no product or the step is unknown', () => {
    expect(parseWizardQuery(new URLSearchParams('step=preview&product=p9'))).toEqual({ step: 'preview', productId: 'p9', fromProduct: false });
    expect(parseWizardQuery(new URLSearchParams('step=publish'))).toEqual({ step: 'init', productId: '', fromProduct: false });
    expect(parseWizardQuery(new URLSearchParams('step=<script>&product=p1'))).toEqual({ step: 'init', productId: '', fromProduct: false });
    expect(parseWizardQuery(new URLSearchParams('step=verify&product=p1'))).toEqual({ step: 'verify', productId: '', fromProduct: false });
    expect(parseWizardQuery(new URLSearchParams('step=publish&product=p1&from=product'))).toEqual({ step: 'publish', productId: 'p1', fromProduct: true });
    expect(wizardURL('configurator', 'p 1')).toBe('/workspace/add-product?step=configurator&product=p+1');
    expect(wizardURL('init', 'p1')).toBe('/workspace/add-product?step=init');
  });

  it('allows Remove background and Generate 3D only with a name and an uploaded photo (spec §5)', () => {
    expect(canAct('', 'up1')).toBe(false);
    expect(canAct('   ', 'up1')).toBe(false);
    expect(canAct('Chair', '')).toBe(false);
    expect(canAct('Chair', null)).toBe(false);
    expect(canAct('Chair', 'up1')).toBe(true);
  });

  it('takes one JPEG/PNG/WebP photo of at most 10 MB with the spec messages', () => {
    const f = (name: string, type: string, size = 1000) => ({ name, type, size });
    expect(checkWizardPhoto([f('a.jpg', 'image/jpeg')])).toBeNull();
    expect(checkWizardPhoto([f('a.webp', 'image/webp')])).toBeNull();
    expect(checkWizardPhoto([f('a.jpg', 'image/jpeg'), f('b.jpg', 'image/jpeg')])).toBe(MSG_ONE_IMAGE);
    expect(checkWizardPhoto([f('a.gif', 'image/gif')])).toBe(MSG_INVALID_TYPE);
    expect(checkWizardPhoto([f('a.png', 'image/png', 10_485_761)])).toBe(MSG_TOO_LARGE);
    expect(checkWizardPhoto([f('a.png', 'image/png', 10_485_760)])).toBeNull();
  });

  it('takes one .glb, or one .gltf with its files, as an own model', () => {
    expect(checkModelFiles([{ name: 'chair.GLB' }])).toBeNull();
    expect(checkModelFiles([{ name: 'chair.gltf' }, { name: 'chair.bin' }, { name: 'wood.png' }])).toBeNull();
    expect(checkModelFiles([{ name: 'a.glb' }, { name: 'b.glb' }])).not.toBeNull();
    expect(checkModelFiles([{ name: 'a.glb' }, { name: 'a.bin' }])).not.toBeNull();
    expect(checkModelFiles([{ name: 'a.obj' }])).not.toBeNull();
  });

  it('reads the build state from what the server reported', () => {
    expect(buildState({ status: 'processing', builds: [build()] }, { status: 'queued', progress: 0 })).toBe('queued');
    expect(buildState({ status: 'processing', builds: [build()] }, null)).toBe('queued');
    expect(buildState({ status: 'processing', builds: [build({ stage: 'queued' })] }, null)).toBe('queued');
    expect(buildState({ status: 'processing', builds: [build({ progress: 40, stage: 'mesh' })] }, null)).toBe('processing');
    expect(buildState({ status: 'processing', builds: [build()] }, { status: 'processing', progress: 10 })).toBe('processing');
    expect(buildState({ status: 'ready', builds: [] }, null)).toBe('ready');
    expect(buildState({ status: 'error', builds: [] }, null)).toBe('failed');
    expect(buildState({ status: 'draft', builds: [] }, null)).toBe('draft');
    expect(buildState({ status: 'processing', builds: [build({ stage: 'Queued' })] }, null)).toBe('queued');
    expect(buildProgress({ status: 'processing', builds: [build({ progress: 42.4 })] }, { progress: 10 })).toBe(42);
    expect(buildProgress({ status: 'processing', builds: [build()] }, { progress: 73 })).toBe(73);
    expect(buildProgress({ status: 'processing', builds: [build({ progress: 140 })] }, null)).toBe(100);
    expect(buildProgress({ status: 'ready', builds: [] }, null)).toBe(100);
  });

  it('gives the modal steps pending/active/done/error states', () => {
    const st = (s: Parameters<typeof modalSteps>[0]) => modalSteps(s).map((x) => x.status);
    expect(modalSteps('queued').map((x) => x.label)).toEqual(['Queued', 'Processing', 'Ready']);
    expect(st('queued')).toEqual(['active', 'pending', 'pending']);
    expect(st('processing')).toEqual(['done', 'active', 'pending']);
    expect(st('ready')).toEqual(['done', 'done', 'done']);
    expect(st('failed')).toEqual(['done', 'error', 'pending']);
  });

  it("uses the server's embed code, else an 800×600 iframe with fullscreen", () => {
    expect(embedCodeFor({ embedCode: '<iframe x>', shareURL: 'https://h/v/abc' })).toBe('<iframe x>');
    const code = embedCodeFor({ embedCode: '', shareURL: 'https://h/v/abc' });
    expect(code).toContain('src="https://h/embed/abc"');
    expect(code).toContain('width="800" height="600"');
    expect(code).toContain('allowfullscreen');
    // Responsive (issue 50 item 5): as wide as its column, never wider than 800 px, at 4:3.
    expect(code).toContain('style="display:block;width:100%;max-width:800px;height:auto;aspect-ratio:800/600;border:0"');
  });
});

describe('startingDraft (issue 29 item 7)', () => {
  it('keeps the draft on reload or Back, starts empty when the wizard is opened afresh', () => {
    saveDraft({ name: 'Abandoned stool', uploadId: 'up1', photoURL: '/blobs/x', fileName: 'x.png' });
    saveCreated({ id: 'p1', name: 'Vase' });
    expect(startingDraft('POP', null).name).toBe('Abandoned stool');
    expect(startingDraft('PUSH', { wizard: true }).name).toBe('Abandoned stool');
    expect(loadCreated()).toEqual({ id: 'p1', name: 'Vase' });
    expect(startingDraft('PUSH', null)).toEqual({ name: '', uploadId: '', photoURL: '', fileName: '' });
    expect(loadDraft().name).toBe('');
    expect(loadCreated()).toBeNull();
  });
});

describe('lockSummary (issue 50 item 1)', () => {
  it('unlocked: shoppers see the latest edits, and locking keeps the page as it is now', () => {
    expect(lockSummary({ locked: false, lockedVersion: 0, lockedAt: '', pendingEdits: false })).toEqual({
      status: 'Shoppers see your latest edits.',
      hint: 'Locking freezes the page exactly as shoppers see it now (price, buy links, variants, hotspots). Later edits wait until you unlock it.',
    });
  });
  it('locked: names the version and when it was published, and whether edits wait', () => {
    // 11:00 UTC: 5 May in every usual time zone of the machine running the test.
    const locked = { locked: true, lockedVersion: 3, lockedAt: '2027-05-05T11:00:00Z', pendingEdits: false };
    expect(lockSummary(locked).status).toMatch(/^Locked: shoppers see version 3, published on 5 May 2027, \d{1,2}:\d{2}\s?(am|pm)\.$/i);
    expect(lockSummary(locked).hint).toBe('Edits you make now do not show on the page until you publish them or unlock it.');
    expect(lockSummary({ ...locked, pendingEdits: true }).hint).toBe('You have edits that shoppers do not see yet. Publish them to update the locked page, or unlock it.');
    expect(lockSummary({ ...locked, lockedAt: '' }).status).toBe('Locked: shoppers see version 3.');
  });
});
