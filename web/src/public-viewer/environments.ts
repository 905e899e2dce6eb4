import outdoor from 'virtual:env-map/park';
import studio from 'virtual:env-map/studio';
import dramatic from 'virtual:env-map/sunset';
import { NEUTRAL_ENVIRONMENT } from './neutral-env';

/** The lighting presets a merchant picks (spec §2 Configurator tab), in display order. */
export const LIGHTING_PRESETS = ['Studio', 'Outdoor', 'Dramatic', 'Neutral'] as const;
export type Lighting = (typeof LIGHTING_PRESETS)[number];

/**
 * The <model-viewer environment-image> for a lighting preset. Studio, Outdoor and Dramatic
 * are CC0 HDRIs from the npm package @pmndrs/assets, bundled by Vite as hashed same-origin
 * .hdr files reduced to 128×64 at build time, about 20-23 KB each in brotli: model-viewer draws
 * the model's first frame only once its map has arrived (issue 54; see scripts/env-maps.mjs;
 * never a CDN). Neutral, which is also what an unknown
 * value and the share page get, is model-viewer's built-in 'neutral' environment pre-rendered
 * to a small .hdr (see neutral-env.ts): the same look without generating it on every load.
 */
export function environmentFor(lighting: string): string {
  switch (lighting) {
    case 'Studio':
      return studio;
    case 'Outdoor':
      return outdoor;
    case 'Dramatic':
      return dramatic;
    default:
      return NEUTRAL_ENVIRONMENT;
  }
}
