import type { Plugin } from 'vite';
/** See env-maps.mjs: lighting environment maps from @pmndrs/assets as .hdr assets. */
export function envMaps(): Plugin;
export function encodeRgbe(img: { width: number; height: number; data: ArrayLike<number> }): Uint8Array;
