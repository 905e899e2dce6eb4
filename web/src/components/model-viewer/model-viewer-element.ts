import type { DetailedHTMLProps, HTMLAttributes } from 'react';

/**
 * The part of the <model-viewer> element API we use, typed locally so pages that
 * only render the wrapper never pull model-viewer's (three.js-dependent) types.
 */
export interface ModelViewerElement extends HTMLElement {
  src: string | null;
  loaded: boolean;
  autoRotate: boolean;
  ar: boolean;
  readonly canActivateAR: boolean;
  exposure: number;
  shadowIntensity: number;
  cameraOrbit: string;
  cameraTarget: string;
  fieldOfView: string;
  animationName: string | undefined;
  availableAnimations: string[];
  currentTime: number;
  duration: number;
  paused: boolean;
  play(options?: { repetitions?: number; pingpong?: boolean }): void;
  pause(): void;
  jumpCameraToGoal(): void;
  resetTurntableRotation(theta?: number): void;
  requestUpdate(name?: string, oldValue?: unknown): void;
  readonly updateComplete: Promise<boolean>;
  toBlob(options?: { mimeType?: string; qualityArgument?: number; idealAspect?: boolean }): Promise<Blob>;
}

/**
 * What we set from JSX. React 19 assigns a prop as a *property* when the upgraded element has
 * one (`ar`, `exposure`, `src`…), and as an attribute otherwise (hyphenated names, and every
 * name before the element is defined, as in jsdom). So a property-named prop carries the
 * property's own type: `ar=''` made `el.ar` falsy and AR could never start, and a string
 * `exposure` was ignored by the renderer (issue 50 item 2). Hyphenated names stay attributes:
 * `''` present, undefined absent, numbers written as text.
 */
export interface ModelViewerAttributes extends HTMLAttributes<ModelViewerElement> {
  src?: string;
  alt?: string;
  poster?: string;
  loading?: 'auto' | 'lazy' | 'eager';
  reveal?: 'auto' | 'manual';
  'auto-rotate'?: '' | undefined;
  'camera-controls'?: '' | undefined;
  'touch-action'?: string;
  ar?: boolean;
  'ar-modes'?: string;
  exposure?: number;
  'shadow-intensity'?: number;
  'environment-image'?: string;
  'animation-name'?: string;
  'interaction-prompt'?: 'auto' | 'none';
  'camera-orbit'?: string;
  'max-camera-orbit'?: string;
}

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'model-viewer': DetailedHTMLProps<ModelViewerAttributes, ModelViewerElement>;
    }
  }
}
