// Package dashboard assembles the merchant's home screen (/my-home) from real
// read models: the items they were last working on, their best products and
// recommendations computed from their own state. The spec's version of this
// screen is hard-coded sample data; ours shows nothing rather than invent any.
package dashboard

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/workspace"
)

// RecentCount is how many cards "Resume where you left off…" shows.
const RecentCount = 5

// Dashboard is the GET /api/dashboard payload.
type Dashboard struct {
	Recent      []workspace.Item `json:"recent"`
	TopProducts []TopProduct     `json:"topProducts"`
	Insights    []Insight        `json:"insights"`
}

// TopProduct is one entry of "Top Products": a product and the metric it is
// ranked by, already formatted for people.
type TopProduct struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Metric string `json:"metric"`
	Path   string `json:"path"`
}

// Insight is one recommendation of "Insights & Actions"; Path is where acting
// on it starts, or nil when there is nothing to open.
type Insight struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Message string  `json:"message"`
	Path    *string `json:"path"`
}

// Service builds dashboards. The clock is injected because whether a trial
// is still running (and so which allowances apply) depends on the moment.
type Service struct {
	items *workspace.Reader
	now   func() time.Time
	top   TopProductsFunc
}

// TopProductsFunc ranks a user's products from shopper analytics
// (internal/analytics via cmd/api; nil: the section stays empty).
type TopProductsFunc func(ctx context.Context, userID string) ([]TopProduct, error)

// WithTopProducts returns a copy whose Top Products come from f.
func (s *Service) WithTopProducts(f TopProductsFunc) *Service {
	c := *s
	c.top = f
	return &c
}

// NewService returns a Service reading workspace read models.
func NewService(items *workspace.Reader, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{items: items, now: now}
}

// Get returns userID's dashboard.
func (s *Service) Get(ctx context.Context, userID string) (Dashboard, error) {
	recent, err := s.items.Recent(ctx, userID, RecentCount)
	if err != nil {
		return Dashboard{}, fmt.Errorf("dashboard: %w", err)
	}
	sum, err := s.items.Summary(ctx, userID)
	if err != nil {
		return Dashboard{}, fmt.Errorf("dashboard: %w", err)
	}
	top := []TopProduct{}
	if s.top != nil {
		if top, err = s.top(ctx, userID); err != nil {
			return Dashboard{}, fmt.Errorf("dashboard: %w", err)
		}
	}
	return Dashboard{
		Recent: recent,
		// Ranked by shopper analytics (engagement rate) when wired; an empty
		// list rather than invented numbers otherwise.
		TopProducts: top,
		Insights:    Insights(sum, s.now()),
	}, nil
}

const (
	subscriptionPath = "/workspace/subscription"
	blueprintsPath   = "/workspace/blueprints"
	uploadPath       = "/workspace/upload"
	// viewsWarnPercent matches the notification threshold in internal/notify.
	viewsWarnPercent = 80
)

// Insights derives recommendations from a user's state at now, problems
// first, then next steps. Each appears only while its condition holds, so
// acting on one makes it disappear; with nothing to say the list is empty.
func Insights(s workspace.Summary, now time.Time) []Insight {
	out := []Insight{}
	add := func(id, title, message, path string) {
		in := Insight{ID: id, Title: title, Message: message}
		if path != "" {
			in.Path = &path
		}
		out = append(out, in)
	}

	// Issue 50 item 6: after a downgrade the pages stay published but
	// shoppers are turned away; say so, and why, before anything else.
	if n := s.LivePages.Total(); n > 0 && s.Usage.EffectivePlan(now) == "free" {
		if limit, _ := s.Usage.ViewsLimit(now); s.Usage.ViewsUsed >= limit {
			add("pages-offline", "Your public pages are offline",
				fmt.Sprintf("The Free plan includes no public views, so shoppers can't open your %s. Upgrade to Pro to bring them back; nothing was unpublished.",
					count(n, "live page", "live pages")),
				subscriptionPath)
		}
	}

	if n := s.FailedSinceReady; n > 0 {
		add("failed-builds", count(n, "build failed", "builds failed"),
			"Try a photo of the product on a plain background, evenly lit and filling most of the frame. Failed builds cost no credits.",
			blueprintsPath)
	}

	if left, limited := s.Usage.CreditsLeft(now); limited {
		limit, _ := s.Usage.CreditsLimit(now)
		switch {
		case left == 0:
			add("credits-out", "No AI credits left",
				"Add a pack of 20 AI credits to build more 3D models.", subscriptionPath)
		case left <= max(3, limit/5):
			add("credits-low", count(int(left), "AI credit left", "AI credits left"),
				"Each new 3D model uses AI credits. Add a pack of 20 before you run out.", subscriptionPath)
		}
	}

	if pct, ok := s.Usage.ViewsUsedPercent(now); ok && pct >= viewsWarnPercent {
		title := fmt.Sprintf("%d%% of public views used", pct)
		if pct >= 100 {
			title = "Public views used up"
		}
		add("views-low", title, "Add a pack of 10,000 views to keep your share links working.", subscriptionPath)
	}

	switch {
	case s.Blueprints == 0:
		add("first-model", "Create your first 3D model",
			"Upload one product photo and we will build an interactive 3D model from it.", uploadPath)
	case s.LatestReady != nil && s.Publications == 0:
		if s.Usage.EffectivePlan(now) == "free" {
			add("first-share-link", "Share your 3D models by link",
				fmt.Sprintf("Share links, embeds and QR codes come with Pro. Upgrade to publish “%s”.", s.LatestReady.Label),
				subscriptionPath)
		} else {
			add("first-share-link", "Publish your first share link",
				fmt.Sprintf("“%s” is ready. Publish it as a share link, embed or QR code so shoppers can see it in 3D.", s.LatestReady.Label),
				s.LatestReady.Path)
		}
	}
	return out
}

// count writes n with its noun phrase ("1 build failed", "2 builds failed").
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, strings.TrimSpace(many))
}
