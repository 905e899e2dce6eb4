package httpapi

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/photo3d/photo3d/internal/experiment"
)

// mountExperiments adds the A/B tests of a product's page (issue 52).
func mountExperiments(r chi.Router, s *experiment.Service) {
	if s == nil {
		return
	}
	r.Method("POST", "/products/{id}/experiments", createExperiment(s))
	r.Method("GET", "/products/{id}/experiments", listExperiments(s))
	r.Method("GET", "/experiments/{id}", experimentResults(s))
	r.Method("POST", "/experiments/{id}/pause", changeExperiment(s.Pause))
	r.Method("POST", "/experiments/{id}/resume", changeExperiment(s.Resume))
	r.Method("POST", "/experiments/{id}/stop", changeExperiment(s.Stop))
	r.Method("POST", "/experiments/{id}/apply", applyExperiment(s))
}

// applyExperiment serves POST /api/experiments/{id}/apply {armId}: "make this
// the default" ends the experiment and makes the arm's preset the product's.
func applyExperiment(s *experiment.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in struct {
			ArmID string `json:"armId"`
		}
		if err := DecodeJSON(r, &in); err != nil {
			return err
		}
		out, err := s.Apply(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), in.ArmID)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, out)
		return nil
	}
}

// createExperiment serves POST /api/products/{id}/experiments {goal, trafficShare?, arms}:
// 201 with the experiment, running on the product's live page.
func createExperiment(s *experiment.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in experiment.Input
		if err := DecodeJSON(r, &in); err != nil {
			return err
		}
		e, err := s.Create(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"), in)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusCreated, e)
		return nil
	}
}

// listExperiments serves GET /api/products/{id}/experiments, newest first.
func listExperiments(s *experiment.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		list, err := s.List(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, map[string]any{"items": list})
		return nil
	}
}

// experimentResults serves GET /api/experiments/{id}: the experiment and its numbers.
func experimentResults(s *experiment.Service) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		res, err := s.Results(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, res)
		return nil
	}
}

// changeExperiment serves POST /api/experiments/{id}/pause, /resume and /stop.
func changeExperiment(change func(ctx context.Context, userID, id string) (experiment.Experiment, error)) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		e, err := change(r.Context(), currentWorkspace(r), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, e)
		return nil
	}
}
