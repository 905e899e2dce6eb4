/**
 * model-viewer's 'neutral' environment, pre-rendered: a 256×128 equirectangular Radiance file
 * (neutral-env.hdr, made from model-viewer's own code by ops/sharepage-neutral-env.mjs), bundled
 * by Vite as a hashed same-origin asset (the public pages' CSP allows 'self' only; never a CDN).
 *
 * Why (issue 18, a shopper's phone): given the keyword 'neutral', model-viewer renders its
 * neutral room into a 256² half-float cube and blurs it on every page load, and three.js then
 * PMREM-filters that 256² cube on the first frame; its `load` event waits for both. In software
 * WebGL (and on a weak phone GPU) that is the longest wait after the model has arrived. From
 * this file the generation is gone and PMREM works from 64² faces (three sizes it from the
 * source: width / 4), about 16× fewer pixels per filter pass. The look is the same: the room
 * is blurred by σ = 0.04 rad, about 1.6 pixels at this size, so the file loses nothing visible.
 * Brotli brings it to about 25 KB, fetched in parallel with the model.
 */
import url from './neutral-env.hdr?url';

export const NEUTRAL_ENVIRONMENT: string = url;
