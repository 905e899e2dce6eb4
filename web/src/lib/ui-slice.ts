import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { useCallback } from 'react';
import { useAppDispatch, useAppSelector } from './hooks';
import { rootReducer } from './root-reducer';

/** Which top-bar popup is open; at most one at a time (spec §4 "Dropdowns are mutually exclusive"). */
export type MenuId = 'search' | 'notifications' | 'account';

interface UiState {
  openMenu: MenuId | null;
}

const uiSlice = createSlice({
  name: 'ui',
  initialState: { openMenu: null } as UiState,
  reducers: {
    menuOpened(state, action: PayloadAction<MenuId>) {
      state.openMenu = action.payload;
    },
    menuClosed(state, action: PayloadAction<MenuId | undefined>) {
      if (action.payload === undefined || state.openMenu === action.payload) state.openMenu = null;
    },
  },
  selectors: {
    selectOpenMenu: (s) => s.openMenu,
  },
});

declare module './root-reducer' {
  export interface LazyLoadedSlices extends WithSlice<typeof uiSlice> {}
}

const injected = uiSlice.injectInto(rootReducer);

export const { menuOpened, menuClosed } = uiSlice.actions;
export const { selectOpenMenu } = injected.selectors;

/** Open state of one popup; opening it closes the others. */
export function useMenu(id: MenuId) {
  const dispatch = useAppDispatch();
  const open = useAppSelector(selectOpenMenu) === id;
  const setOpen = useCallback((next: boolean) => dispatch(next ? menuOpened(id) : menuClosed(id)), [dispatch, id]);
  const close = useCallback(() => dispatch(menuClosed(id)), [dispatch, id]);
  return { open, setOpen, close };
}
