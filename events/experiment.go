package events

import "time"

// Experiment events (issue 52): an A/B test of how a published product is
// shown, one experiment-{id} stream each. The arms' presets are the viewer
// settings each arm applies to the live version; names are the merchant's.
// The results are not events: they are read from the shopper telemetry
// (shopper_events.arm), so a replay of both gives the same numbers.

// ExperimentPreset is how an arm shows the page: the product's viewer presets
// (catalog.Presets), which hotspots show, and the variant the page opens on.
type ExperimentPreset struct {
	Lighting        string  `json:"lighting" erase:"keep"`
	Background      string  `json:"background" erase:"keep"`
	BackgroundColor string  `json:"backgroundColor" erase:"keep"`
	CameraOrbit     string  `json:"cameraOrbit" erase:"keep"`
	Autospin        bool    `json:"autospin"`
	Exposure        float64 `json:"exposure,omitempty"`            // 0: 1
	Poster          string  `json:"poster,omitempty" erase:"keep"` // "": the model's picture
	// HotspotIDs: the hotspots shown (nil: all of the version's).
	HotspotIDs       []string `json:"hotspotIds"`
	DefaultVariantID string   `json:"defaultVariantId"`
}

// ExperimentArm is one arm; the first is the control.
type ExperimentArm struct {
	ArmID  string           `json:"armId"`
	Name   string           `json:"name" erase:"text"`
	Preset ExperimentPreset `json:"preset"`
}

// ExperimentStarted records an experiment and starts it on the product's live
// publication. TrafficShare is the share of shoppers in the experiment (the
// others see the page as it is and are not counted).
type ExperimentStarted struct {
	ExperimentID  string          `json:"experimentId"`
	UserID        string          `json:"userId"`
	ProductID     string          `json:"productId"`
	PublicationID string          `json:"publicationId"`
	Goal          string          `json:"goal" erase:"keep"` // ar | clicks | leads
	TrafficShare  float64         `json:"trafficShare"`
	Arms          []ExperimentArm `json:"arms"`
	At            time.Time       `json:"at"`
}

// EventType implements Event.
func (ExperimentStarted) EventType() string { return "experiment.started.v1" }

// ExperimentPaused stops assigning shoppers; the page shows the live version.
type ExperimentPaused struct {
	ExperimentID string    `json:"experimentId"`
	UserID       string    `json:"userId"`
	At           time.Time `json:"at"`
}

// EventType implements Event.
func (ExperimentPaused) EventType() string { return "experiment.paused.v1" }

// ExperimentResumed assigns shoppers again, each to the arm they had.
type ExperimentResumed struct {
	ExperimentID string    `json:"experimentId"`
	UserID       string    `json:"userId"`
	At           time.Time `json:"at"`
}

// EventType implements Event.
func (ExperimentResumed) EventType() string { return "experiment.resumed.v1" }

// ExperimentStopped ends an experiment for good. AppliedArmID is the arm whose
// preset became the product's presets ("make this the default"); "" when the
// merchant only stopped it, or the product's live version ended it.
type ExperimentStopped struct {
	ExperimentID string    `json:"experimentId"`
	UserID       string    `json:"userId"`
	AppliedArmID string    `json:"appliedArmId,omitempty"`
	Reason       string    `json:"reason" erase:"keep"` // stopped | applied | unpublished
	At           time.Time `json:"at"`
}

// EventType implements Event.
func (ExperimentStopped) EventType() string { return "experiment.stopped.v1" }

func experimentEvents() []Event {
	return []Event{ExperimentStarted{}, ExperimentPaused{}, ExperimentResumed{}, ExperimentStopped{}}
}
