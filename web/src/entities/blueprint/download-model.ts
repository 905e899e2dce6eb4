import { downloadFile } from '../../lib/download';

export { DownloadRefused } from '../../lib/download';

/** Saves a model (GLB) through the app's one download path (lib/download). */
export function downloadModel(modelURL: string, fileName: string): Promise<void> {
  return downloadFile(modelURL, fileName, 'model/gltf-binary');
}
