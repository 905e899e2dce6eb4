import type { ModelViewerElement } from './model-viewer-element';

/*
 * Direct access to the three.js scene inside <model-viewer>. model-viewer keeps its
 * ModelScene (a THREE.Scene subclass) under a private symbol named "scene"; its
 * `model` is the loaded glTF scene. We only touch standard three.js object fields
 * (visible, material.wireframe, userData.name), so the structural types below are
 * enough and three's own typings are not needed.
 */

interface ThreeMaterial {
  name: string;
  wireframe?: boolean;
}

/** A three.js Object3D as far as we use it. */
export interface ThreeObject {
  name: string;
  visible: boolean;
  isMesh?: boolean;
  material?: ThreeMaterial | ThreeMaterial[];
  userData: Record<string, unknown>;
  parent: ThreeObject | null;
  children: ThreeObject[];
  traverse(cb: (o: ThreeObject) => void): void;
}

interface ModelScene {
  model: ThreeObject | null;
  queueRender(): void;
  queueShadowRender?(): void;
}

/** A part as listed in the parts panel: from the job record or from the scene graph. */
export interface ScenePart {
  id: string;
  name: string;
  color?: string;
  share?: number;
}

/** The internal ModelScene, or null before the element has built it. */
export function modelScene(el: ModelViewerElement): ModelScene | null {
  const key = Object.getOwnPropertySymbols(el).find((s) => s.description === 'scene');
  if (!key) return null;
  const scene = (el as unknown as Record<symbol, unknown>)[key] as ModelScene | undefined;
  return scene && typeof scene.queueRender === 'function' ? scene : null;
}

function rerender(scene: ModelScene) {
  scene.queueShadowRender?.();
  scene.queueRender();
}

/** The glTF name of a node: three keeps the original in userData.name and sanitises `name`. */
export function gltfName(o: ThreeObject): string {
  return typeof o.userData?.name === 'string' ? (o.userData.name as string) : o.name;
}

/** Compares names the way three.js sanitises them (spaces → _, no []./: characters). */
export function sameName(a: string, b: string): boolean {
  const norm = (s: string) => s.trim().replace(/\s+/g, '_').replace(/[[\].:/]/g, '').toLowerCase();
  return norm(a) === norm(b);
}

function meshes(root: ThreeObject): ThreeObject[] {
  const out: ThreeObject[] = [];
  root.traverse((o) => {
    if (o.isMesh) out.push(o);
  });
  return out;
}

function materials(o: ThreeObject): ThreeMaterial[] {
  if (!o.material) return [];
  return Array.isArray(o.material) ? o.material : [o.material];
}

/** Parts found in the loaded model: one per named mesh node, in scene order. */
export function sceneParts(el: ModelViewerElement): ScenePart[] {
  const model = modelScene(el)?.model;
  if (!model) return [];
  const seen = new Set<string>();
  const parts: ScenePart[] = [];
  for (const m of meshes(model)) {
    const name = gltfName(m) || materials(m)[0]?.name || `Part ${parts.length + 1}`;
    if (seen.has(name)) continue;
    seen.add(name);
    parts.push({ id: name, name });
  }
  return parts;
}

/** Whether a mesh belongs to a part: its node, an ancestor or its material carries the part's name. */
export function meshBelongsTo(mesh: ThreeObject, part: ScenePart): boolean {
  for (let o: ThreeObject | null = mesh; o; o = o.parent) {
    const n = gltfName(o);
    if (n && (sameName(n, part.name) || n === part.id)) return true;
  }
  return materials(mesh).some((mat) => mat.name && sameName(mat.name, part.name));
}

/** Renders every triangle edge of the model (three.js material wireframe) or restores shading. */
export function setWireframe(el: ModelViewerElement, on: boolean): boolean {
  const scene = modelScene(el);
  if (!scene?.model) return false;
  for (const m of meshes(scene.model)) for (const mat of materials(m)) mat.wireframe = on;
  rerender(scene);
  return true;
}

/**
 * Shows only the meshes of `part` (null shows everything). Returns how many meshes
 * stayed visible, so callers can tell when a part name matched nothing.
 */
export function setSolo(el: ModelViewerElement, part: ScenePart | null): number {
  const scene = modelScene(el);
  if (!scene?.model) return 0;
  let shown = 0;
  for (const m of meshes(scene.model)) {
    m.visible = part === null || meshBelongsTo(m, part);
    if (m.visible) shown++;
  }
  rerender(scene);
  return shown;
}

/**
 * The app's default orbit: model-viewer's angles (controls.ts) a little further out than its
 * 105 %, so a model has air around it instead of touching the frame's edges.
 */
export const DEFAULT_CAMERA_ORBIT = '0deg 75deg 118%';
/** How far out the camera goes for the exploded view: the parts fly apart and stay in frame. */
export const EXPLODED_RADIUS = '175%';
/**
 * How far out the camera may go. model-viewer's default ("auto") stops at its own 105 % framing
 * distance, which silently clamped DEFAULT_CAMERA_ORBIT's 118 % and EXPLODED_RADIUS's 175 % back to
 * 105 %. Its percentage is of that 105 % distance: 200 % allows 210 % of the framing distance. The
 * public pages use the same value (internal/catalog MaxCameraOrbit).
 */
export const MAX_CAMERA_ORBIT = 'auto auto 200%';

/**
 * Puts the camera back on the default orbit. User drags do not change the
 * cameraOrbit property, so the update is requested explicitly.
 */
export async function resetCamera(el: ModelViewerElement, { jump = false } = {}): Promise<void> {
  el.cameraOrbit = DEFAULT_CAMERA_ORBIT;
  el.cameraTarget = 'auto auto auto';
  el.fieldOfView = 'auto';
  el.resetTurntableRotation(0);
  el.requestUpdate('cameraOrbit');
  el.requestUpdate('cameraTarget');
  el.requestUpdate('fieldOfView');
  await el.updateComplete;
  if (jump) el.jumpCameraToGoal();
}

/** The explode animation the reconstructor writes into every GLB. */
export const EXPLODE_ANIMATION = 'Explode';

/**
 * Exploded view: plays the GLB's "Explode" animation once (it clamps on the last
 * frame), or poses it at the end straight away when motion is reduced. Off returns
 * to the assembled pose. Returns false when the model has no such animation.
 */
export function setExploded(el: ModelViewerElement, on: boolean, { instant = false } = {}): boolean {
  const names = el.availableAnimations ?? [];
  const name = names.find((n) => n === EXPLODE_ANIMATION) ?? names.find((n) => /explode/i.test(n));
  if (!name) return false;
  el.animationName = name;
  frameFor(el, on ? EXPLODED_RADIUS : DEFAULT_CAMERA_ORBIT.split(' ')[2]);
  if (!on) {
    el.pause();
    el.currentTime = 0;
    return true;
  }
  // play() builds the action synchronously from animationName.
  el.play({ repetitions: 1 });
  if (instant) {
    el.pause();
    el.currentTime = el.duration;
  } else {
    el.currentTime = 0;
  }
  return true;
}

/** Moves the camera to a radius (a percentage of the framing distance), keeping the shopper's angles. */
function frameFor(el: ModelViewerElement, radius: string): void {
  const orbit = (el as ModelViewerElement & { getCameraOrbit?: () => { theta: number; phi: number } }).getCameraOrbit?.();
  el.cameraOrbit = orbit ? `${orbit.theta}rad ${orbit.phi}rad ${radius}` : `0deg 75deg ${radius}`;
}
