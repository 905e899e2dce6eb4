package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/photo3d/photo3d/events"
	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/eventstore"
	"github.com/photo3d/photo3d/internal/fault"
	"github.com/photo3d/photo3d/internal/pgdb"
	"github.com/photo3d/photo3d/internal/subscription"
)

// Goals: what counts as a conversion, and the shopper event that records it.
var goalKinds = map[string]string{"ar": "ar", "clicks": "click", "leads": "lead"}

// Limits of an experiment's definition.
const (
	MinArms       = 2
	MaxArms       = 4
	MaxArmNameLen = 40
)

// States.
const (
	StateRunning = "running"
	StatePaused  = "paused"
	StateStopped = "stopped"
)

// Messages a merchant reads.
var (
	errNotFound     = fault.NotFoundf("Experiment not found.")
	errPlan         = fault.New(fault.Forbidden, "upgrade_required", "Experiments are a Pro feature. Upgrade to Pro or start a free trial to test how your product is shown.")
	errNotPublished = fault.New(fault.Conflict, "not_published", "Publish this product first: an experiment tests how its live page is shown.")
	errOpen         = fault.New(fault.Conflict, "experiment_open", "This product already has an experiment. Stop it before you start another.")
	errStopped      = fault.New(fault.Conflict, "experiment_stopped", "This experiment has ended.")
	errGoal         = fault.Invalidf("invalid_goal", `Choose a goal: "ar" (AR opens), "clicks" (store clicks) or "leads".`)
	errLeadsNoGate  = fault.Invalidf("invalid_goal", "Leads come from the email gate, and this product's page has none. Choose AR opens or store clicks, or turn the email gate on.")
	errArmCount     = fault.Invalidf("invalid_arms", "An experiment has 2 to 4 arms; the first is the control.")
	errTraffic      = fault.Invalidf("invalid_traffic_share", "The traffic share is between 0.01 and 1 (1: every shopper is in the experiment).")
)

// PresetInput is an arm's preset as the API takes it. Empty fields take the
// product's own presets; hotspots null shows every hotspot.
type PresetInput struct {
	Lighting        string   `json:"lighting"`
	Background      string   `json:"background"`
	BackgroundColor string   `json:"backgroundColor"`
	CameraOrbit     string   `json:"cameraOrbit"`
	Autospin        *bool    `json:"autospin"`
	Exposure        *float64 `json:"exposure"` // 0.25–2
	Poster          string   `json:"poster"`   // model | none
	Hotspots        []string `json:"hotspots"`
	DefaultVariant  string   `json:"defaultVariant"`
}

// ArmInput is one arm of a new experiment.
type ArmInput struct {
	Name   string      `json:"name"`
	Preset PresetInput `json:"preset"`
}

// Input is POST /api/products/{id}/experiments.
type Input struct {
	Goal         string     `json:"goal"`
	TrafficShare *float64   `json:"trafficShare"`
	Arms         []ArmInput `json:"arms"`
}

// Preset is an arm's preset as stored and shown.
type Preset struct {
	Lighting        string   `json:"lighting"`
	Background      string   `json:"background"`
	BackgroundColor string   `json:"backgroundColor"`
	CameraOrbit     string   `json:"cameraOrbit"`
	Autospin        bool     `json:"autospin"`
	Exposure        float64  `json:"exposure"`
	Poster          string   `json:"poster"`
	Hotspots        []string `json:"hotspots"` // null: every hotspot
	DefaultVariant  string   `json:"defaultVariant"`
}

// Arm is an arm as the API shows it.
type Arm struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Control bool   `json:"control"`
	Preset  Preset `json:"preset"`
}

// Experiment is an experiment as the API shows it.
type Experiment struct {
	ID            string     `json:"id"`
	ProductID     string     `json:"productId"`
	PublicationID string     `json:"publicationId"`
	Goal          string     `json:"goal"`
	TrafficShare  float64    `json:"trafficShare"`
	State         string     `json:"state"`
	Arms          []Arm      `json:"arms"`
	StartedAt     time.Time  `json:"startedAt"`
	StoppedAt     *time.Time `json:"stoppedAt"`
	StopReason    string     `json:"stopReason"`
	AppliedArmID  string     `json:"appliedArmId"`
}

// Service starts, pauses, resumes and stops experiments and reads their results.
type Service struct {
	db     *pgxpool.Pool
	store  *eventstore.Store
	subs   *subscription.Service
	notify string
	now    func() time.Time
}

// NewService builds the service. pagesChannel is the Postgres channel the
// public pages listen on for a publication whose page changed
// (publish.NotifyChannel; passed in, as internal/publish reads experiments).
func NewService(db *pgxpool.Pool, store *eventstore.Store, subs *subscription.Service, pagesChannel string) *Service {
	return &Service{db: db, store: store, subs: subs, notify: pagesChannel, now: time.Now}
}

func stream(id string) events.Stream { return events.Stream{Type: events.StreamExperiment, ID: id} }

// Create starts an experiment on the owner's live product page.
func (s *Service) Create(ctx context.Context, userID, productID string, in Input) (Experiment, error) {
	if _, ok := goalKinds[in.Goal]; !ok {
		return Experiment{}, errGoal
	}
	share := 1.0
	if in.TrafficShare != nil {
		share = *in.TrafficShare
	}
	if !(share >= 0.01 && share <= 1) {
		return Experiment{}, errTraffic
	}
	if len(in.Arms) < MinArms || len(in.Arms) > MaxArms {
		return Experiment{}, errArmCount
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Experiment{}, fmt.Errorf("experiment id: %w", err)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	var out Experiment
	err = pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		// One owner's product at a time: two racing starts cannot both pass.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('experiments/' || $1, 0))`, productID); err != nil {
			return fmt.Errorf("lock experiments: %w", err)
		}
		sub, err := s.subs.Get(ctx, tx, userID)
		if err != nil {
			return err
		}
		if sub.EffectivePlan != subscription.PlanPro && sub.EffectivePlan != subscription.PlanEnterprise {
			return errPlan
		}
		cfg, err := productConfig(ctx, tx, userID, productID)
		if err != nil {
			return err
		}
		var pubID string
		var gate bool
		err = tx.QueryRow(ctx, `SELECT id, require_email FROM publications
			WHERE user_id = $1 AND product_id = $2 AND unpublished_at IS NULL`, userID, productID).Scan(&pubID, &gate)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNotPublished
		}
		if err != nil {
			return fmt.Errorf("read publication: %w", err)
		}
		if in.Goal == "leads" && !gate {
			return errLeadsNoGate
		}
		var open bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM experiments WHERE product_id = $1 AND state <> 'stopped')`, productID).Scan(&open); err != nil {
			return fmt.Errorf("read experiments: %w", err)
		}
		if open {
			return errOpen
		}
		arms, err := checkArms(in.Arms, cfg)
		if err != nil {
			return err
		}
		ev := events.ExperimentStarted{ExperimentID: id.String(), UserID: userID, ProductID: productID, PublicationID: pubID,
			Goal: in.Goal, TrafficShare: share, Arms: arms, At: now}
		if _, err := s.store.Append(ctx, tx, stream(ev.ExperimentID), 0, ev); err != nil {
			return err
		}
		body, err := json.Marshal(arms)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO experiments (id, user_id, product_id, publication_id, goal, traffic_share, arms, state, started_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', $8, $8)`, ev.ExperimentID, userID, productID, pubID, in.Goal, share, body, now); err != nil {
			return fmt.Errorf("save experiment: %w", err)
		}
		if err := s.notifyPages(ctx, tx, pubID); err != nil {
			return err
		}
		out = view(ev.ExperimentID, productID, pubID, in.Goal, share, StateRunning, arms, now, nil, "", "")
		return nil
	})
	return out, err
}

// productConfig reads the owner's product's configuration (another owner's id: 404).
func productConfig(ctx context.Context, q pgdb.Querier, userID, productID string) (catalog.Config, error) {
	if _, err := uuid.Parse(productID); err != nil {
		return catalog.Config{}, catalog.ErrProductNotFound
	}
	var raw []byte
	err := q.QueryRow(ctx, `SELECT config FROM products WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`, productID, userID).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return catalog.Config{}, catalog.ErrProductNotFound
	}
	if err != nil {
		return catalog.Config{}, fmt.Errorf("read product: %w", err)
	}
	cfg := catalog.NewConfig()
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return catalog.Config{}, fmt.Errorf("read product config: %w", err)
		}
	}
	return cfg, nil
}

// checkArms validates the arms against the product: names, presets, hotspot
// and variant ids. Empty preset fields take the product's own presets.
func checkArms(in []ArmInput, cfg catalog.Config) ([]events.ExperimentArm, error) {
	var out []events.ExperimentArm
	seen := map[string]bool{}
	for i, a := range in {
		name := strings.Join(strings.Fields(a.Name), " ")
		if name == "" {
			if i == 0 {
				name = "Control"
			} else {
				name = fmt.Sprintf("Arm %c", 'A'+i-1)
			}
		}
		if utf8.RuneCountInString(name) > MaxArmNameLen {
			return nil, fault.Invalidf("invalid_arm_name", "Arm names are at most %d characters.", MaxArmNameLen)
		}
		if seen[strings.ToLower(name)] {
			return nil, fault.Invalidf("invalid_arm_name", "Two arms are called %q: give each arm its own name.", name)
		}
		seen[strings.ToLower(name)] = true
		p := cfg.Presets
		if a.Preset.Lighting != "" {
			p.Lighting = a.Preset.Lighting
		}
		if a.Preset.Background != "" {
			p.Background = a.Preset.Background
		}
		if a.Preset.BackgroundColor != "" {
			p.BackgroundColor = a.Preset.BackgroundColor
		}
		if a.Preset.CameraOrbit != "" {
			p.CameraOrbit = a.Preset.CameraOrbit
		}
		if a.Preset.Autospin != nil {
			p.Autospin = *a.Preset.Autospin
		}
		if a.Preset.Exposure != nil {
			if p.Exposure = *a.Preset.Exposure; p.Exposure == 0 {
				p.Exposure = -1 // refused below: 0 would read as "the product's own"
			}
		}
		if a.Preset.Poster != "" {
			p.Poster = a.Preset.Poster
		}
		p, err := catalog.CheckPresets(p)
		if err != nil {
			return nil, err
		}
		var hotspots []string
		if a.Preset.Hotspots != nil {
			hotspots = []string{}
			for _, h := range a.Preset.Hotspots {
				if !slices.ContainsFunc(cfg.Hotspots, func(x catalog.Hotspot) bool { return x.ID == h }) {
					return nil, fault.Invalidf("invalid_hotspot", "Hotspot %q is not on this product.", h)
				}
				if !slices.Contains(hotspots, h) {
					hotspots = append(hotspots, h)
				}
			}
		}
		if v := a.Preset.DefaultVariant; v != "" && !slices.ContainsFunc(cfg.Variants, func(x catalog.Variant) bool { return x.ID == v }) {
			return nil, fault.Invalidf("invalid_variant", "Variant %q is not on this product.", v)
		}
		armID, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("arm id: %w", err)
		}
		out = append(out, events.ExperimentArm{ArmID: armID.String(), Name: name, Preset: events.ExperimentPreset{
			Lighting: p.Lighting, Background: p.Background, BackgroundColor: p.BackgroundColor, CameraOrbit: p.CameraOrbit,
			Autospin: p.Autospin, Exposure: p.Exposure, Poster: p.Poster, HotspotIDs: hotspots, DefaultVariantID: a.Preset.DefaultVariant}})
	}
	return out, nil
}

func view(id, productID, pubID, goal string, share float64, state string, arms []events.ExperimentArm, started time.Time, stopped *time.Time, reason, applied string) Experiment {
	e := Experiment{ID: id, ProductID: productID, PublicationID: pubID, Goal: goal, TrafficShare: share, State: state,
		StartedAt: started.UTC(), StopReason: reason, AppliedArmID: applied}
	if stopped != nil {
		t := stopped.UTC()
		e.StoppedAt = &t
	}
	for i, a := range arms {
		e.Arms = append(e.Arms, Arm{ID: a.ArmID, Name: a.Name, Control: i == 0, Preset: Preset{Lighting: a.Preset.Lighting,
			Background: a.Preset.Background, BackgroundColor: a.Preset.BackgroundColor, CameraOrbit: a.Preset.CameraOrbit,
			Autospin: a.Preset.Autospin, Exposure: a.Preset.Exposure, Poster: a.Preset.Poster, Hotspots: a.Preset.HotspotIDs,
			DefaultVariant: a.Preset.DefaultVariantID}})
	}
	return e
}

// notifyPages tells every api instance to drop the publication's cached page,
// as a publish does, so the next shopper gets the experiment's arms.
func (s *Service) notifyPages(ctx context.Context, tx pgx.Tx, pubID string) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($2, slug) FROM publications WHERE id = $1`, pubID, s.notify)
	if err != nil {
		return fmt.Errorf("notify pages: %w", err)
	}
	return nil
}

const experimentColumns = `id, product_id, publication_id, goal, traffic_share, arms, state, started_at, stopped_at, stop_reason, applied_arm_id`

func scanExperiment(row pgx.Row) (Experiment, []events.ExperimentArm, error) {
	var (
		id, productID, pubID, goal, state, reason, applied string
		share                                              float64
		raw                                                []byte
		started                                            time.Time
		stopped                                            *time.Time
	)
	if err := row.Scan(&id, &productID, &pubID, &goal, &share, &raw, &state, &started, &stopped, &reason, &applied); err != nil {
		return Experiment{}, nil, err
	}
	var arms []events.ExperimentArm
	if err := json.Unmarshal(raw, &arms); err != nil {
		return Experiment{}, nil, fmt.Errorf("read arms: %w", err)
	}
	return view(id, productID, pubID, goal, share, state, arms, started, stopped, reason, applied), arms, nil
}

// List reads a product's experiments, newest first.
func (s *Service) List(ctx context.Context, userID, productID string) ([]Experiment, error) {
	if _, err := productConfig(ctx, s.db, userID, productID); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `SELECT `+experimentColumns+` FROM experiments WHERE user_id = $1 AND product_id = $2
		ORDER BY started_at DESC, id DESC`, userID, productID)
	if err != nil {
		return nil, fmt.Errorf("list experiments: %w", err)
	}
	out := []Experiment{}
	for rows.Next() {
		e, _, err := scanExperiment(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Pause stops assigning shoppers; Resume starts again. Stop ends it for good.
func (s *Service) Pause(ctx context.Context, userID, id string) (Experiment, error) {
	return s.change(ctx, userID, id, func(e Experiment, at time.Time) (events.Event, string, error) {
		if e.State != StateRunning {
			return nil, "", nil
		}
		return events.ExperimentPaused{ExperimentID: id, UserID: userID, At: at}, StatePaused, nil
	})
}

// Resume assigns shoppers again, each to the arm they had.
func (s *Service) Resume(ctx context.Context, userID, id string) (Experiment, error) {
	return s.change(ctx, userID, id, func(e Experiment, at time.Time) (events.Event, string, error) {
		if e.State != StatePaused {
			return nil, "", nil
		}
		return events.ExperimentResumed{ExperimentID: id, UserID: userID, At: at}, StateRunning, nil
	})
}

// Stop ends the experiment; the page shows the live version to everyone.
func (s *Service) Stop(ctx context.Context, userID, id string) (Experiment, error) {
	return s.change(ctx, userID, id, func(e Experiment, at time.Time) (events.Event, string, error) {
		return events.ExperimentStopped{ExperimentID: id, UserID: userID, Reason: "stopped", At: at}, StateStopped, nil
	})
}

// lockOpen reads and locks the owner's experiment for a change (another
// owner's id: 404); a stopped experiment changes no more (409).
func lockOpen(ctx context.Context, tx pgx.Tx, userID, id string) (Experiment, []events.ExperimentArm, error) {
	e, arms, err := scanExperiment(tx.QueryRow(ctx, `SELECT `+experimentColumns+` FROM experiments WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Experiment{}, nil, errNotFound
	}
	if err != nil {
		return Experiment{}, nil, err
	}
	if e.State == StateStopped {
		return Experiment{}, nil, errStopped
	}
	return e, arms, nil
}

// change applies one state change: decide returns the event and the new state
// (nil: nothing to do). A stopped experiment changes no more.
func (s *Service) change(ctx context.Context, userID, id string, decide func(Experiment, time.Time) (events.Event, string, error)) (Experiment, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Experiment{}, errNotFound
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	var out Experiment
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		e, _, err := lockOpen(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		ev, state, err := decide(e, now)
		if err != nil {
			return err
		}
		out = e
		if ev == nil {
			return nil
		}
		if _, err := s.store.Append(ctx, tx, stream(id), eventstore.AnyVersion, ev); err != nil {
			return err
		}
		var reason string
		var stopped *time.Time
		if st, ok := ev.(events.ExperimentStopped); ok {
			reason, stopped = st.Reason, &now
		}
		if _, err := tx.Exec(ctx, `UPDATE experiments SET state = $2, stop_reason = $3, stopped_at = $4, updated_at = $5 WHERE id = $1`,
			id, state, reason, stopped, now); err != nil {
			return fmt.Errorf("save experiment: %w", err)
		}
		out.State, out.StopReason = state, reason
		if stopped != nil {
			out.StoppedAt = stopped
		}
		return s.notifyPages(ctx, tx, e.PublicationID)
	})
	return out, err
}

// StopForPublication ends, in tx, the open experiment of a publication that
// stops being live (unpublished): an experiment.stopped.v1 with the reason, as
// the merchant's own stop would append. Nothing when there is none.
func StopForPublication(ctx context.Context, tx pgx.Tx, store *eventstore.Store, publicationID, reason string, at time.Time) error {
	rows, err := tx.Query(ctx, `UPDATE experiments SET state = 'stopped', stop_reason = $2, stopped_at = $3, updated_at = $3
		WHERE publication_id = $1 AND state <> 'stopped' RETURNING id, user_id`, publicationID, reason, at.UTC())
	if err != nil {
		return fmt.Errorf("stop experiments: %w", err)
	}
	type open struct{ id, user string }
	var stopped []open
	for rows.Next() {
		var o open
		if err := rows.Scan(&o.id, &o.user); err != nil {
			rows.Close()
			return fmt.Errorf("stop experiments: %w", err)
		}
		stopped = append(stopped, o)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stop experiments: %w", err)
	}
	for _, o := range stopped {
		if _, err := store.Append(ctx, tx, stream(o.id), eventstore.AnyVersion,
			events.ExperimentStopped{ExperimentID: o.id, UserID: o.user, Reason: reason, At: at.UTC()}); err != nil {
			return err
		}
	}
	return nil
}

// Applied is the answer to "make this the default".
type Applied struct {
	Experiment
	// NotApplied names what of the arm's preset the product cannot take, with
	// why (a product opens on its first variant; no setting chooses another).
	NotApplied []string `json:"notApplied"`
}

var errArm = fault.Invalidf("invalid_arm", "Choose one of this experiment's arms.")

// Apply ends the experiment and makes the arm's preset the product's own, in one
// transaction: its viewer presets (product.presets_changed.v1) and its hotspots
// (those the arm hid are removed, product.hotspot_removed.v1), then
// experiment.stopped.v1 with the reason "applied". An unlocked page shows the
// product as it now is at once; a locked page keeps its version until the
// merchant publishes the new one (the publish screen shows the pending edits).
func (s *Service) Apply(ctx context.Context, userID, id, armID string) (Applied, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Applied{}, errNotFound
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	var out Applied
	err := pgdb.WithTx(ctx, s.db, func(tx pgx.Tx) error {
		e, arms, err := lockOpen(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(arms, func(a events.ExperimentArm) bool { return a.ArmID == armID })
		if i < 0 {
			return errArm
		}
		arm := arms[i].Preset
		cfg, err := productConfig(ctx, tx, userID, e.ProductID)
		if err != nil {
			return err
		}
		product := events.Stream{Type: events.StreamProduct, ID: e.ProductID}
		var evs []events.Event
		// The arm's whole presentation becomes the product's: its viewer
		// settings, its exposure and poster, and the variant it opened on
		// (an arm that named none keeps the product's).
		p := catalog.Presets{Lighting: arm.Lighting, Background: arm.Background, BackgroundColor: arm.BackgroundColor,
			CameraOrbit: arm.CameraOrbit, Autospin: arm.Autospin, Exposure: arm.Exposure, Poster: arm.Poster,
			DefaultVariantID: cfg.Presets.DefaultVariantID}.Normalized()
		if v := arm.DefaultVariantID; v != "" && catalog.CheckDefaultVariant(cfg, v) == nil {
			p.DefaultVariantID = v
		}
		if p != cfg.Presets {
			evs = append(evs, catalog.PresetsChanged(e.ProductID, p, now))
		}
		if arm.HotspotIDs != nil {
			for _, h := range cfg.Hotspots {
				if !slices.Contains(arm.HotspotIDs, h.ID) {
					evs = append(evs, events.ProductHotspotRemoved{ProductID: e.ProductID, HotspotID: h.ID, At: now})
				}
			}
		}
		if len(evs) > 0 {
			if _, err := s.store.Append(ctx, tx, product, eventstore.AnyVersion, evs...); err != nil {
				return err
			}
		}
		if v := arm.DefaultVariantID; v != "" && catalog.CheckDefaultVariant(cfg, v) != nil {
			out.NotApplied = append(out.NotApplied, "defaultVariant: the variant this arm opened on was removed from the product since")
		}
		if _, err := s.store.Append(ctx, tx, stream(id), eventstore.AnyVersion, events.ExperimentStopped{
			ExperimentID: id, UserID: userID, AppliedArmID: armID, Reason: "applied", At: now}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE experiments SET state = 'stopped', stop_reason = 'applied', applied_arm_id = $2, stopped_at = $3, updated_at = $3
			WHERE id = $1`, id, armID, now); err != nil {
			return fmt.Errorf("save experiment: %w", err)
		}
		e.State, e.StopReason, e.AppliedArmID, e.StoppedAt = StateStopped, "applied", armID, &now
		out.Experiment = e
		return s.notifyPages(ctx, tx, e.PublicationID)
	})
	if out.NotApplied == nil {
		out.NotApplied = []string{}
	}
	return out, err
}
