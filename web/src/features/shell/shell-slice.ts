import { createSlice, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../lib/root-reducer';

/** Where the collapsed preference is remembered (written by the layout). */
export const COLLAPSED_KEY = 'photo3d.sidebarCollapsed';

function initialCollapsed(): boolean {
  try {
    return localStorage.getItem(COLLAPSED_KEY) === '1';
  } catch {
    return false;
  }
}

/** Sidebar state: collapsed on desktop, open as a drawer on small screens. */
const shellSlice = createSlice({
  name: 'shell',
  initialState: () => ({ collapsed: initialCollapsed(), mobileOpen: false }),
  reducers: {
    collapseToggled(state) {
      state.collapsed = !state.collapsed;
    },
    mobileOpened(state) {
      state.mobileOpen = true;
    },
    mobileClosed(state) {
      state.mobileOpen = false;
    },
  },
  selectors: {
    selectCollapsed: (s) => s.collapsed,
    selectMobileOpen: (s) => s.mobileOpen,
  },
});

declare module '../../lib/root-reducer' {
  export interface LazyLoadedSlices extends WithSlice<typeof shellSlice> {}
}

const injected = shellSlice.injectInto(rootReducer);

export const { collapseToggled, mobileOpened, mobileClosed } = shellSlice.actions;
export const { selectCollapsed, selectMobileOpen } = injected.selectors;
