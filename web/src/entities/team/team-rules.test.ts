import { describe, expect, it } from 'vitest';
import { parseApproval, parsePageState, type WorkspaceList } from './team-api';
import { canWithdraw, comparisonRows, currentWorkspace, fallbackWorkspace, hasFreeSeat, lockedPagesText, publishNeedsApproval, seatsText, youAre } from './team-rules';

const list: WorkspaceList = {
  current: 'w2',
  items: [
    { id: 'u1', name: "Ada's workspace", role: 'owner', own: true, requireApproval: false, members: 1 },
    { id: 'w2', name: 'Asha Home', role: 'editor', own: false, requireApproval: true, members: 3 },
    { id: 'w3', name: 'Zed Co', role: 'analyst', own: false, requireApproval: false, members: 2 },
  ],
};
const member = (userId: string) => ({ userId, role: 'editor' as const, name: '', email: '', joinedAt: '', approvalMail: false });
const invite = { id: 'i', email: 'x@example.com', role: 'editor' as const, expiresAt: '', createdAt: '' };

describe('team rules (issue 51)', () => {
  it('counts members and open invitations against the seats', () => {
    expect(seatsText({ seats: 5, members: [member('a'), member('b')], invites: [invite] })).toBe('3 of 5 seats used');
    expect(seatsText({ seats: 0, members: [member('a')], invites: [] })).toBe('1 seat used (unlimited)');
    expect(hasFreeSeat({ seats: 1, members: [member('a')], invites: [] })).toBe(false);
    expect(hasFreeSeat({ seats: 5, members: [member('a')], invites: [invite] })).toBe(true);
  });

  it('says how many live pages turning approvals on locked', () => {
    expect(lockedPagesText(3)).toBe('3 live pages were locked to what shoppers see now.');
    expect(lockedPagesText(1)).toBe('1 live page was locked to what shoppers see now.');
    expect(lockedPagesText(0)).toBe('No live pages needed locking.');
  });

  it('finds the current workspace, and where to go when it is gone', () => {
    expect(currentWorkspace(list)?.name).toBe('Asha Home');
    expect(currentWorkspace({ ...list, current: '' })?.id).toBe('u1');
    expect(fallbackWorkspace(list, 'w2')?.id).toBe('u1');
    expect(fallbackWorkspace({ current: '', items: list.items.slice(1) }, 'w2')?.id).toBe('w3');
    expect(fallbackWorkspace(undefined, 'w2')).toBeNull();
  });

  it("makes an editor's Publish a request only where approval is required", () => {
    expect(publishNeedsApproval(list.items[1])).toBe(true);
    expect(publishNeedsApproval({ role: 'owner', requireApproval: true })).toBe(false);
    expect(publishNeedsApproval({ role: 'editor', requireApproval: false })).toBe(false);
    expect(publishNeedsApproval(null)).toBe(false);
    expect([youAre('owner'), youAre('editor'), youAre('reviewer'), youAre('analyst')]).toEqual([
      'You are the owner',
      'You are an editor',
      'You are a reviewer',
      'You are an analyst',
    ]);
  });

  it('lets who asked (recorded as user-{id}) or the owner withdraw a pending request', () => {
    const a = parseApproval({ id: 'a1', status: 'pending', requestedBy: { id: 'user-u7', kind: 'user', name: 'Ada Editor' } });
    expect(canWithdraw(a, 'u7', 'editor')).toBe(true);
    expect(canWithdraw(a, 'u8', 'editor')).toBe(false);
    expect(canWithdraw(a, 'u8', 'owner')).toBe(true);
    expect(canWithdraw({ ...a, status: 'approved' }, 'u7', 'owner')).toBe(false);
  });

  it('compares what would go live with what is live, field by field', () => {
    const next = parsePageState({
      version: 2,
      name: 'Oak chair',
      variants: [{ name: 'Oak', sku: 'OC-1', price: 4999, currency: 'INR' }],
      links: [{ url: 'https://shop.example.com/oak', variant: 'Oak' }],
      hotspots: ['Seat'],
      requireEmail: true,
      allowDeepLinks: false,
    });
    const live = parsePageState({ version: 1, name: 'Oak chair', variants: [{ name: 'Oak', sku: 'OC-1', price: 3999, currency: 'INR' }], links: [], hotspots: [], requireEmail: false, allowDeepLinks: false });
    const rows = comparisonRows(next, live);
    const by = Object.fromEntries(rows.map((r) => [r.label, r]));
    expect(by['Version']).toMatchObject({ next: ['v2'], live: ['v1'], changed: true });
    expect(by['Name'].changed).toBe(false);
    expect(by['Variants and prices'].next[0]).toMatch(/^Oak \(OC-1\): ₹4,999/);
    expect(by['Variants and prices'].changed).toBe(true);
    expect(by['Buy links']).toMatchObject({ next: ['https://shop.example.com/oak (Oak)'], live: ['None'], changed: true });
    expect(by['Email gate'].next).toEqual(['Shoppers leave their email first']);
    expect(by['Deep links to variants'].changed).toBe(false);
    // A page never published: everything would be new.
    expect(comparisonRows(next, null).every((r) => r.live === null && r.changed)).toBe(true);
  });
});
