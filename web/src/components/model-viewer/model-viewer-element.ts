import type { DetailedHTMLProps, HTMLAttributes } from 'react';

/**
 * The part of the <model-viewer> element API we use, typed locally so pages that
 * only render the wrapper never pull model-viewer's (three.js-dependent) types.
 */
export interface ModelViewerElement extends HTMLElement {
  src: string | null;
  loaded: boolean;
  autoRotate: boolean;
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

/** Attributes we set from JSX; booleans follow HTML (present or absent). */
export interface ModelViewerAttributes extends HTMLAttributes<ModelViewerElement> {
  src?: string;
  alt?: string;
  poster?: string;
  loading?: 'auto' | 'lazy' | 'eager';
  reveal?: 'auto' | 'manual';
  'auto-rotate'?: '' | undefined;
  'camera-controls'?: '' | undefined;
  'touch-action'?: string;
  ar?: '' | undefined;
  'ar-modes'?: string;
  exposure?: string;
  'shadow-intensity'?: string;
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
