/**
 * The share page's gesture hint (merchant walk 4, P21). The page carries both texts and CSS shows
 * the touch one on a coarse pointer, so it is right without this script; this also marks a phone
 * or tablet whose browser reports a fine pointer (some Android browsers in desktop mode do).
 */
export function wireTouchHint(handheld: boolean, root: HTMLElement = document.body): void {
  if (handheld) root.classList.add('p3d-touch');
}
