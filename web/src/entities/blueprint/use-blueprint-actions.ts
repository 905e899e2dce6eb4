import { useCallback, useEffect, useState } from 'react';
import { useLazyGetBlueprintModelQuery, useShareBlueprintMutation } from './blueprints-api';
import { COPIED_MS, glbFileName, MSG_DOWNLOAD_FAILED, MSG_NO_MODEL, MSG_SHARE_FAILED, MSG_SHARE_UPGRADE, signedURLExpired } from './blueprint-rules';
import { DownloadRefused, downloadModel } from './download-model';

/** What Download and Share act on. */
export interface BlueprintTarget {
  /** Sent as blueprintId to POST /api/publications: the job id (spec: blueprintId = jobId). */
  jobId: string;
  name: string;
  /** Known model address; looked up from the job when missing. */
  modelURL: string | null;
}

export interface ActionProblem {
  message: string;
  /** 402/403: the plan does not allow it; show the subscription link. */
  upgrade: boolean;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Download (fetch + blob link, named after the blueprint) and Share Link (publish + copy). */
export function useBlueprintActions(target: BlueprintTarget) {
  const [share, { data: links, isLoading: sharing }] = useShareBlueprintMutation();
  const [lookupModel] = useLazyGetBlueprintModelQuery();
  const [downloading, setDownloading] = useState(false);
  const [copied, setCopied] = useState(false);
  const [problem, setProblem] = useState<ActionProblem | null>(null);

  useEffect(() => {
    if (!copied) return;
    const t = window.setTimeout(() => setCopied(false), COPIED_MS);
    return () => window.clearTimeout(t);
  }, [copied]);

  const { jobId, name, modelURL } = target;
  const download = useCallback(async () => {
    setProblem(null);
    setDownloading(true);
    // The page may have been open past the signed URL's expiry: then (or when the
    // store refuses it anyway) ask the server for a fresh one, never the cached answer.
    const freshURL = async () => {
      const res = await lookupModel(jobId, false);
      const url = res.data?.modelURL ?? null;
      if (!url) throw new Error(res.error ? MSG_DOWNLOAD_FAILED : MSG_NO_MODEL);
      return url;
    };
    try {
      const known = modelURL && !signedURLExpired(modelURL) ? modelURL : null;
      const url = known ?? (await freshURL());
      try {
        await downloadModel(url, glbFileName(name));
      } catch (e) {
        if (!known || !(e instanceof DownloadRefused)) throw e;
        await downloadModel(await freshURL(), glbFileName(name));
      }
    } catch (e) {
      setProblem({ message: e instanceof Error && e.message ? e.message : MSG_DOWNLOAD_FAILED, upgrade: false });
    } finally {
      setDownloading(false);
    }
  }, [jobId, name, modelURL, lookupModel]);

  const shareLink = useCallback(async () => {
    setProblem(null);
    const res = await share({ blueprintId: jobId });
    if ('error' in res && res.error) {
      const err = res.error as { status?: unknown; message?: string };
      const upgrade = err.status === 402 || err.status === 403;
      setProblem({ message: err.message || (upgrade ? MSG_SHARE_UPGRADE : MSG_SHARE_FAILED), upgrade });
      return;
    }
    if (res.data?.shareURL && (await copyText(res.data.shareURL))) setCopied(true);
  }, [jobId, share]);

  return { download, shareLink, downloading, sharing, copied, problem, links, clearProblem: () => setProblem(null) };
}
