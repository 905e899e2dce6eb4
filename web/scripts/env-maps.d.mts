import type { Plugin } from 'vite';
/** See env-maps.mjs: lighting environment maps from @pmndrs/assets as small .hdr assets. */
export function envMaps(): Plugin;
export function encodeRgbe(img: { width: number; height: number; data: ArrayLike<number> }): Uint8Array;
/** The width of the maps written (equirectangular, half as high). */
export const ENV_WIDTH: number;
/** Area-averages an equirectangular RGBA float image down to `width` columns, weighted by solid angle. */
export function downsample(img: { width: number; height: number; data: ArrayLike<number> }, width: number): { width: number; height: number; data: Float32Array };
/** The .hdr file written for the package's map `name` (studio, park, sunset). */
export function hdrBytes(name: string): Uint8Array;
