import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { useRetryJobMutation } from './creation-api';
import { MSG_PROCESS_FAILED, processingPath } from './creation-rules';
import { priceLabel } from './more-angles';

/**
 * Retry for a failed build (POST /api/jobs/{id}/retry): the server starts a new
 * attempt from the same photos, holding one AI credit per photo again (photos, when
 * known, puts the price on the button's tooltip), and this follows it on the
 * processing screen. What the server refused (no credits left, …) is shown here.
 */
export function RetryButton({
  jobId,
  className = 'btn btn--primary',
  photos,
}: {
  jobId: string;
  className?: string;
  photos?: number;
}) {
  const navigate = useNavigate();
  const [retry, { isLoading }] = useRetryJobMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const click = async () => {
    setProblem(null);
    const res = await retry(jobId);
    if ('error' in res && res.error) {
      setProblem(errorMessage(res.error, MSG_PROCESS_FAILED));
      return;
    }
    navigate(processingPath(res.data.jobId), { replace: true });
  };
  return (
    <>
      <button type="button" className={className} onClick={click} disabled={isLoading} title={photos ? priceLabel(photos) : undefined}>
        {isLoading ? 'Retrying…' : 'Retry'}
      </button>
      {problem && <Alert tone="error">{problem}</Alert>}
    </>
  );
}
