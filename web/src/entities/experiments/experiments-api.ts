import { api } from '../../lib/api';

/** An arm's preset (issue 52): how it shows the product's live page. */
export interface ExperimentPreset {
  lighting: string;
  background: string;
  backgroundColor: string;
  cameraOrbit: string;
  autospin: boolean;
  /** model-viewer's exposure (0.25–2); 0 on arms made before it existed: the product's own. */
  exposure: number;
  /** 'model' (the model's picture while it loads) or 'none' (the loading bar only); '' before it existed. */
  poster: string;
  /** The hotspot ids shown; null shows them all. */
  hotspots: string[] | null;
  /** The variant the page opens on; '' the product's own. */
  defaultVariant: string;
}

export interface ExperimentArm {
  id: string;
  name: string;
  control: boolean;
  preset: ExperimentPreset;
}

export type ExperimentGoal = 'ar' | 'clicks' | 'leads';
export type ExperimentState = 'running' | 'paused' | 'stopped';
export type Decision = 'no clear winner yet' | 'winner' | 'control is better';

export interface Experiment {
  id: string;
  productId: string;
  publicationId: string;
  goal: ExperimentGoal;
  trafficShare: number;
  state: ExperimentState;
  arms: ExperimentArm[];
  startedAt: string;
  stoppedAt: string | null;
  stopReason: string;
  appliedArmId: string;
}

export interface ArmResult extends ExperimentArm {
  visitors: number;
  conversions: number;
  rate: number;
  interval: [number, number];
  uplift?: number;
  upliftInterval?: [number, number] | null;
  probabilityToBeat?: number;
  decision?: Decision;
  sampleStillNeeded?: number;
}

export interface ExperimentResults extends Omit<Experiment, 'arms'> {
  arms: ArmResult[];
  leadingArmId: string;
  uplift: number;
  upliftInterval: [number, number] | null;
  probabilityToBeat: number;
  decision: Decision;
  winnerArmId: string;
  rule: string;
}

export interface NewExperiment {
  goal: ExperimentGoal;
  trafficShare?: number;
  arms: { name: string; preset?: Partial<Omit<ExperimentPreset, 'hotspots'>> & { hotspots?: string[] | null } }[];
}

export const GOAL_LABEL: Record<ExperimentGoal, string> = { ar: 'AR opens', clicks: 'Store clicks', leads: 'Leads' };

const experimentsApi = api.enhanceEndpoints({ addTagTypes: ['Experiment', 'Product'] }).injectEndpoints({
  endpoints: (build) => ({
    productExperiments: build.query<{ items: Experiment[] }, string>({
      query: (productId) => ({ url: `/products/${encodeURIComponent(productId)}/experiments` }),
      providesTags: ['Experiment'],
    }),
    experimentResults: build.query<ExperimentResults, string>({
      query: (id) => ({ url: `/experiments/${encodeURIComponent(id)}` }),
      providesTags: ['Experiment'],
    }),
    startExperiment: build.mutation<Experiment, { productId: string; body: NewExperiment }>({
      query: ({ productId, body }) => ({ url: `/products/${encodeURIComponent(productId)}/experiments`, method: 'POST', body }),
      invalidatesTags: ['Experiment'],
    }),
    changeExperiment: build.mutation<Experiment, { id: string; action: 'pause' | 'resume' | 'stop' }>({
      query: ({ id, action }) => ({ url: `/experiments/${encodeURIComponent(id)}/${action}`, method: 'POST', body: {} }),
      invalidatesTags: ['Experiment'],
    }),
    applyExperiment: build.mutation<Experiment & { notApplied: string[] }, { id: string; armId: string }>({
      query: ({ id, armId }) => ({ url: `/experiments/${encodeURIComponent(id)}/apply`, method: 'POST', body: { armId } }),
      // The product's presets change too.
      invalidatesTags: ['Experiment', 'Product'],
    }),
  }),
});

export const {
  useProductExperimentsQuery,
  useExperimentResultsQuery,
  useStartExperimentMutation,
  useChangeExperimentMutation,
  useApplyExperimentMutation,
} = experimentsApi;
