import { expect as baseExpect, test, type Browser, type Page } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, collectErrors, snap, uniqueEmail } from './helpers';

/*
 * Issue 51 against the real api + worker: an owner on the Pro trial invites an Editor and a
 * Reviewer; each accepts the link mailed to them (read from the dev Outbox) in their own browser,
 * creating their account. The owner requires approval before publishing; the Editor's Publish
 * becomes a request ("Awaiting approval"); the Reviewer compares and approves it with a comment;
 * a shopper sees the live page; the product's Activity names who asked and who approved. The
 * owner removes the Editor, whose next click moves them to their own workspace with a notice,
 * and whose old session is refused. Every wait is on a condition.
 */
test.setTimeout(600_000);
const expect = baseExpect.configure({ timeout: 30_000 });
const PASSWORD = 'Sup3r-secret-pw';

/** The session token a page's app keeps (sessionStorage, as a sign-in stores it). */
async function sessionToken(page: Page): Promise<string> {
  return page.evaluate(() => (JSON.parse(sessionStorage.getItem('photo3d.auth') ?? '{}') as { token?: string }).token ?? '');
}

/** The accept link (path and query) of the newest invitation mailed to email, from the dev Outbox. */
async function invitationPath(page: Page, email: string): Promise<string> {
  await page.goto('/dev/mail');
  const mail = page.locator('article', { hasText: `To ${email}` }).filter({ hasText: 'invited you to' });
  await expect
    .poll(
      async () => {
        await page.reload();
        return mail.count();
      },
      { timeout: 30_000, message: `an invitation reaches ${email} in the Outbox` },
    )
    .toBeGreaterThan(0);
  const href = await mail.first().locator('a[href*="/accept-invite?invite="]').first().getAttribute('href');
  expect(href, 'the invitation mail links to /accept-invite').toBeTruthy();
  // PUBLIC_BASE_URL names localhost, the browser runs on 127.0.0.1: stay on the app's origin.
  const url = new URL(href!);
  return url.pathname + url.search;
}

/** A teammate opens their invitation in a browser of their own and creates their account. */
async function accept(browser: Browser, email: string, name: string, role: string, workspace: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(await invitationPath(page, email));
  await expect(page.getByTestId('invite-summary')).toHaveText(`${workspace} invited ${email} as ${role}.`);
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await page.waitForURL('**/my-home');
  // Signed in, in the invited workspace: it is listed with their role beside their own.
  const picker = page.getByRole('combobox', { name: 'Current workspace' });
  await expect(picker.locator('option:checked')).toHaveText(`${workspace} · ${role}`);
  return { context, page };
}

test('teams: invitations, roles, approval before publishing, activity, and removal', async ({ page, browser }, testInfo) => {
  const errors = collectErrors(page);
  const ownerEmail = uniqueEmail('team-owner');
  const editorEmail = uniqueEmail('team-editor');
  const reviewerEmail = uniqueEmail('team-reviewer');
  const { token: ownerToken } = await apiSignUp(page.request, { email: ownerEmail, password: PASSWORD, name: 'Asha Owner' });
  const owner = new Api(page.request, ownerToken);
  // More than one seat needs Pro: the trial gives it.
  await owner.call('post', '/api/subscription/trial', {});
  const workspaceName = (await owner.call<{ items: { name: string; own: boolean }[] }>('get', '/api/workspaces')).items.find((w) => w.own)!.name;

  await page.goto('/login');
  await page.getByLabel('Email Address').fill(ownerEmail);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');

  await test.step('the owner invites an Editor and a Reviewer from the Team page', async () => {
    await page.getByRole('complementary', { name: 'Workspace' }).getByRole('link', { name: 'Team' }).click();
    await expect(page.getByRole('heading', { name: 'Team', level: 1 })).toBeVisible();
    await expect(page.getByTestId('team-seats')).toHaveText('1 of 5 seats used');
    const form = page.getByRole('form', { name: 'Invite a teammate' });
    for (const [email, role] of [
      [editorEmail, 'Editor'],
      [reviewerEmail, 'Reviewer'],
    ]) {
      await form.getByLabel('Email address').fill(email);
      await form.getByLabel('Role').selectOption({ label: role });
      await form.getByRole('button', { name: 'Send invitation' }).click();
      await expect(page.getByText(`Invitation sent to ${email} as ${role.toLowerCase()}.`)).toBeVisible();
    }
    const open = page.getByRole('list', { name: 'Open invitations' });
    await expect(open).toContainText(editorEmail);
    await expect(open).toContainText(reviewerEmail);
    await expect(page.getByTestId('team-seats')).toHaveText('3 of 5 seats used');
  });

  const editor = await test.step('the Editor accepts from the mailed link, creating an account', () => accept(browser, editorEmail, 'Ada Editor', 'Editor', workspaceName));
  const reviewer = await test.step('the Reviewer accepts from the mailed link, creating an account', () =>
    accept(browser, reviewerEmail, 'Ravi Reviewer', 'Reviewer', workspaceName),
  );

  await test.step('the owner sees both members and requires approval before publishing', async () => {
    await page.reload();
    const members = page.getByRole('list', { name: 'Members' });
    await expect(members.getByTestId('team-member')).toHaveCount(3);
    await expect(members.getByRole('combobox', { name: 'Role of Ada Editor' })).toHaveValue('editor');
    await expect(members.getByRole('combobox', { name: 'Role of Ravi Reviewer' })).toHaveValue('reviewer');
    await expect(page.getByRole('list', { name: 'Open invitations' })).toHaveCount(0);
    await expect(page.getByTestId('team-seats')).toHaveText('3 of 5 seats used');
    const rule = page.getByLabel('Require approval before publishing');
    await expect(rule).not.toBeChecked();
    await rule.check();
    await expect(page.getByTestId('locked-pages')).toBeVisible();
    await expect(rule).toBeChecked();
    await snap(page, 'teams-team-page', testInfo);
  });

  const editorApi = new Api(editor.page.request, await sessionToken(editor.page));
  const productName = 'Oak lounge chair';
  const product = await test.step('the Editor builds a product from a photo', async () => {
    const blueprintId = await blueprintFromPhoto(editorApi, editor.page.request, productPhotoPNG(320, 400), 'oak-chair.png');
    const created = await editorApi.call<{ id: string }>('post', '/api/products', { name: productName, blueprintId });
    await expect.poll(async () => (await editorApi.call<{ status: string }>('get', `/api/products/${created.id}`)).status, { timeout: 60_000 }).toBe('ready');
    return created;
  });

  await test.step("the Editor's Publish asks for approval: the page says Awaiting approval, not live", async () => {
    await editor.page.goto(`/workspace/product/${product.id}`);
    await editor.page.getByRole('button', { name: 'Publish', exact: true }).click();
    const dialog = editor.page.getByRole('dialog', { name: 'Request approval to publish' });
    await dialog.getByRole('button', { name: 'Request approval' }).click();
    const notice = editor.page.getByRole('status', { name: 'Awaiting approval' });
    await expect(notice).toContainText('Ada Editor asked');
    await expect(notice.getByRole('button', { name: 'Withdraw' })).toBeVisible();
    await expect(editor.page.getByTestId('product-awaiting')).toHaveText('Awaiting approval');
    await expect(editor.page.getByTestId('product-live')).toHaveCount(0);
    await snap(editor.page, 'teams-awaiting-approval', testInfo);
    // Nothing is public yet.
    const detail = await editorApi.call<{ publication: { shareURL?: string } | null }>('get', `/api/products/${product.id}`);
    expect(detail.publication?.shareURL ?? '').toBe('');
  });

  await test.step('the Reviewer compares what would go live with what is live and approves with a comment', async () => {
    const r = reviewer.page;
    await r.goto('/my-home');
    await r.getByRole('complementary', { name: 'Workspace' }).getByRole('link', { name: /Approvals/ }).click();
    const card = r.getByRole('article', { name: new RegExp(`^${productName} · version \\d+$`) });
    await expect(card).toContainText('Ada Editor asked');
    const table = card.getByRole('table', { name: `What would go live for ${productName}` });
    await expect(table).toBeVisible();
    await expect(table.getByRole('columnheader', { name: /After approval/ })).toBeVisible();
    await expect(table.getByRole('row', { name: /^Name/ })).toContainText(productName);
    await expect(table.getByRole('row', { name: /Live now/ })).toBeVisible();
    await snap(r, 'teams-approvals', testInfo);
    await card.getByLabel('Comment').fill('Looks right: prices and links checked.');
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect(card).toHaveCount(0);
    const history = r.getByRole('list', { name: 'Decided requests' });
    await expect(history).toContainText('Approved by Ravi Reviewer');
    await expect(history).toContainText('Looks right: prices and links checked.');
  });

  const shareURL = await test.step('a shopper opens the live page', async () => {
    let url = '';
    await expect
      .poll(async () => (url = (await editorApi.call<{ publication: { shareURL?: string } | null }>('get', `/api/products/${product.id}`)).publication?.shareURL ?? ''))
      .toMatch(/\/v\/[A-Za-z0-9_-]+$/);
    const shopper = await browser.newContext();
    const s = await shopper.newPage();
    await s.goto(url);
    await expect(s.getByRole('heading', { name: productName })).toBeVisible();
    await shopper.close();
    return url;
  });
  expect(shareURL).toBeTruthy();

  await test.step('the Reviewer sees the catalogue view only: no Add product, no configurator Save, no Delete', async () => {
    const r = reviewer.page;
    await r.getByRole('complementary', { name: 'Workspace' }).getByRole('link', { name: 'Products' }).click();
    await expect(r.getByRole('heading', { name: 'My Products', level: 1 })).toBeVisible();
    await expect(r.getByTestId('view-only-note')).toHaveText(
      'View only: as a Reviewer you can see everything and decide approvals; changes are made by editors and the owner.',
    );
    const card = r.getByTestId('product-card').filter({ hasText: productName });
    await expect(card).toBeVisible();
    await expect(r.getByRole('button', { name: 'Add product' })).toHaveCount(0);
    await snap(r, 'teams-reviewer-products', testInfo);

    await card.getByRole('button', { name: `Manage ${productName}` }).click();
    await expect(r.getByRole('heading', { name: productName, level: 1 })).toBeVisible();
    await expect(r.getByTestId('view-only-note')).toBeVisible();
    await expect(r.getByTestId('product-details-read')).toContainText(productName);
    for (const name of ['Save Details', 'Rebuild 3D', 'Replace photo', 'Publish']) {
      await expect(r.getByRole('button', { name, exact: true })).toHaveCount(0);
    }
    await expect(r.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
    await r.getByRole('tab', { name: 'Configurator' }).click();
    await expect(r.getByTestId('configuration-read')).toBeVisible();
    await expect(r.getByRole('button', { name: 'Save', exact: true })).toHaveCount(0);
    await expect(r.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
    await snap(r, 'teams-reviewer-product', testInfo);
  });

  await test.step("the product's Activity names who asked and who approved", async () => {
    const e = editor.page;
    await e.reload();
    await expect(e.getByTestId('product-live')).toBeVisible();
    await expect(e.getByRole('status', { name: 'Awaiting approval' })).toHaveCount(0);
    await e.getByRole('tab', { name: 'Activity' }).click();
    const activity = e.getByRole('list', { name: 'Activity' });
    await expect(activity).toContainText('Ada Editor requested approval for v1');
    await expect(activity).toContainText('Ravi Reviewer approved v1');
    await expect(activity).toContainText('Looks right: prices and links checked.');
    await snap(e, 'teams-activity', testInfo);
  });

  const oldEditorToken = await sessionToken(editor.page);
  await test.step('the owner removes the Editor', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Remove Ada Editor' }).click();
    await page.getByRole('alertdialog', { name: 'Remove Ada Editor?' }).getByRole('button', { name: 'Remove member' }).click();
    await expect(page.getByText('Ada Editor was removed from the workspace.')).toBeVisible();
    await expect(page.getByRole('list', { name: 'Members' }).getByTestId('team-member')).toHaveCount(2);
  });

  await test.step("the Editor's next click moves them to their own workspace, and the old session is refused", async () => {
    const e = editor.page;
    await e.getByRole('complementary', { name: 'Workspace' }).getByRole('link', { name: 'Products' }).click();
    await expect(e.getByTestId('workspace-gone')).toContainText(`You are no longer a member of ${workspaceName}.`);
    await e.waitForURL('**/my-home');
    await expect.poll(() => sessionToken(e)).not.toBe(oldEditorToken);
    await snap(e, 'teams-removed', testInfo);
    const refused = await e.request.get(`/api/products/${product.id}`, { headers: { Authorization: `Bearer ${oldEditorToken}` } });
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error?: { code?: string } }).error?.code).toBe('not_a_member');
    // The new session acts in the Editor's own workspace, where the product is not.
    const own = await e.request.get(`/api/products/${product.id}`, { headers: { Authorization: `Bearer ${await sessionToken(e)}` } });
    expect(own.ok()).toBe(false);
  });

  await editor.context.close();
  await reviewer.context.close();
  expect(errors).toEqual([]);
});
