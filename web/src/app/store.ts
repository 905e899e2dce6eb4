import { configureStore } from '@reduxjs/toolkit';
import { setupListeners } from '@reduxjs/toolkit/query';
import { api } from '../lib/api';
import { rootReducer, type RootState } from '../lib/root-reducer';
// Slices inject themselves into the root reducer when imported.
import '../lib/session';
import '../lib/ui-slice';
import '../features/shell/shell-slice';

/** A fresh store; tests build their own with preloaded state. */
export function makeStore(preloadedState?: Partial<RootState>) {
  const store = configureStore({
    reducer: rootReducer,
    preloadedState: preloadedState as RootState | undefined,
    middleware: (gDM) => gDM().concat(api.middleware),
  });
  setupListeners(store.dispatch);
  return store;
}

export type AppStore = ReturnType<typeof makeStore>;
