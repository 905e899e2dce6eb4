import { combineSlices } from '@reduxjs/toolkit';
import { api } from './api';

/**
 * Slices features add at import time (declaration-merged by each feature), so shared
 * code can type the state without importing features or the app.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LazyLoadedSlices {}

export const rootReducer = combineSlices(api).withLazyLoadedSlices<LazyLoadedSlices>();

export type RootState = ReturnType<typeof rootReducer>;
