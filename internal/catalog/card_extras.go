package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/photo3d/photo3d/events"
)

// Fallbacks when the merchant never saved a brand (the values account.Branding
// answers for an unset brand; repeated here so the catalogue needs no account import).
const (
	defaultBrandName  = "Your Brand"
	defaultBrandColor = "#2E5BBA"
)

// CardExtras are the product-list fields the spec's list item names beyond the
// common ones (spec §3 "Product (list sample)"), derived from real data rather
// than the sample's fixed colours:
//   - Brand: the merchant's brand name (Settings → Branding), shown on share pages.
//   - AccentColor: the dominant colour of the product's current model (its largest
//     part), else the brand colour; AccentOverlay is a 12 % tint of it for a card's
//     background, so a card can be tinted without hiding the thumbnail.
//   - ReadyMetric: the current build's mesh fidelity (0–100), nil when the product
//     is not ready or the build has no score (an uploaded model).
//   - ProcessingProgress: the running build's progress (0–100); 100 when ready, 0
//     for a draft or a failed build.
//   - BuildWarnings: the builder's sentences about the current model (the product
//     runs off an edge of its photo), empty unless the product is ready.
type CardExtras struct {
	Brand              string
	AccentColor        string
	AccentOverlay      string
	ReadyMetric        *int
	ProcessingProgress int
	BuildWarnings      []string
	// Price and Currency: the Default variant's (the product's own price), for the
	// card (issue 50 P11); nil and "" when none is set.
	Price    *float64
	Currency string
}

// CardExtras reads, in three queries whatever the page size, the extras of the
// owner's products ps, keyed by product id.
func (s *Service) CardExtras(ctx context.Context, userID string, ps []Product) (map[string]CardExtras, error) {
	brand, color := defaultBrandName, defaultBrandColor
	err := s.db.QueryRow(ctx, `SELECT brand_name, brand_color FROM branding WHERE user_id = $1`, userID).Scan(&brand, &color)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read branding: %w", err)
	}
	if strings.TrimSpace(brand) == "" {
		brand = defaultBrandName
	}
	if !isHexColor(color) {
		color = defaultBrandColor
	}
	ids := make([]string, 0, len(ps))
	for _, p := range ps {
		if p.JobID != "" {
			ids = append(ids, p.JobID)
		}
	}
	type jobFacts struct {
		progress int
		parts    []events.JobPart
		fidelity *int
		warnings []string
	}
	facts := map[string]jobFacts{}
	if len(ids) > 0 {
		rows, err := s.db.Query(ctx, `SELECT id, progress, parts, stats, warnings FROM jobs WHERE user_id = $1 AND id = ANY($2)`, userID, ids)
		if err != nil {
			return nil, fmt.Errorf("read builds: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var f jobFacts
			var parts, stats, warnings []byte
			if err := rows.Scan(&id, &f.progress, &parts, &stats, &warnings); err != nil {
				return nil, fmt.Errorf("read builds: %w", err)
			}
			_ = json.Unmarshal(parts, &f.parts) // an unreadable parts list only loses the accent
			_ = json.Unmarshal(warnings, &f.warnings)
			var st struct {
				Fidelity *int `json:"fidelity"`
			}
			if json.Unmarshal(stats, &st) == nil && st.Fidelity != nil && *st.Fidelity >= 0 && *st.Fidelity <= 100 {
				f.fidelity = st.Fidelity
			}
			facts[id] = f
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read builds: %w", err)
		}
	}
	type price struct {
		amount   *float64
		currency string
	}
	prices := map[string]price{}
	pids := make([]string, 0, len(ps))
	for _, p := range ps {
		pids = append(pids, p.ID)
	}
	rows, err := s.db.Query(ctx, `SELECT id, (v->>'price')::float8, coalesce(v->>'currency', '')
		FROM products, jsonb_path_query_first(config, '$.variants[*] ? (@.id == "`+DefaultVariantID+`")') AS v
		WHERE user_id = $1 AND id = ANY($2) AND jsonb_typeof(v->'price') = 'number'`, userID, pids)
	if err != nil {
		return nil, fmt.Errorf("read prices: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var pr price
		if err := rows.Scan(&id, &pr.amount, &pr.currency); err != nil {
			return nil, fmt.Errorf("read prices: %w", err)
		}
		prices[id] = pr
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read prices: %w", err)
	}
	out := make(map[string]CardExtras, len(ps))
	for _, p := range ps {
		f := facts[p.JobID]
		x := CardExtras{Brand: brand, AccentColor: color, Price: prices[p.ID].amount, Currency: prices[p.ID].currency}
		if c := dominantColor(f.parts); c != "" {
			x.AccentColor = c
		}
		x.AccentOverlay = overlayOf(x.AccentColor)
		switch p.Status {
		case StatusReady:
			x.ProcessingProgress = 100
			x.ReadyMetric = f.fidelity
			x.BuildWarnings = f.warnings
		case StatusProcessing:
			x.ProcessingProgress = min(max(f.progress, 0), 99)
		}
		out[p.ID] = x
	}
	return out, nil
}

// dominantColor is the colour of the part with the largest share, "" when none is usable.
func dominantColor(parts []events.JobPart) string {
	best, share := "", -1.0
	for _, p := range parts {
		if isHexColor(p.Color) && p.Share > share {
			best, share = strings.ToUpper(p.Color), p.Share
		}
	}
	return best
}

func isHexColor(c string) bool {
	if len(c) != 7 || c[0] != '#' {
		return false
	}
	_, err := strconv.ParseUint(c[1:], 16, 32)
	return err == nil
}

func rgbOf(c string) (r, g, b int) {
	v, _ := strconv.ParseUint(c[1:], 16, 32)
	return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)
}

// overlayOf is a 12 % tint of a #rrggbb colour, as a CSS colour.
func overlayOf(c string) string {
	r, g, b := rgbOf(c)
	return fmt.Sprintf("rgba(%d, %d, %d, 0.12)", r, g, b)
}

// ColorName names a #rrggbb colour in plain words ("dark red", "light grey"), for
// text a merchant reads (a part's description); "" when c is not a colour.
func ColorName(c string) string {
	if !isHexColor(c) {
		return ""
	}
	r, g, b := rgbOf(c)
	rf, gf, bf := float64(r)/255, float64(g)/255, float64(b)/255
	hi, lo := math.Max(rf, math.Max(gf, bf)), math.Min(rf, math.Min(gf, bf))
	l := (hi + lo) / 2
	sat := 0.0
	if hi != lo {
		sat = (hi - lo) / (1 - math.Abs(2*l-1))
	}
	shade := ""
	switch {
	case l < 0.3:
		shade = "dark "
	case l > 0.72:
		shade = "light "
	}
	if sat < 0.18 || hi-lo < 0.08 {
		switch {
		case l < 0.12:
			return "black"
		case l > 0.92:
			return "white"
		}
		return shade + "grey"
	}
	var h float64
	switch hi {
	case rf:
		h = math.Mod((gf-bf)/(hi-lo), 6)
	case gf:
		h = (bf-rf)/(hi-lo) + 2
	default:
		h = (rf-gf)/(hi-lo) + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	hue := "red"
	switch {
	case h < 15 || h >= 345:
		hue = "red"
	case h < 45:
		hue = "orange"
		if l < 0.45 {
			hue = "brown"
		}
	case h < 70:
		hue = "yellow"
	case h < 165:
		hue = "green"
	case h < 200:
		hue = "teal"
	case h < 255:
		hue = "blue"
	case h < 290:
		hue = "purple"
	default:
		hue = "pink"
	}
	if hue == "brown" {
		return "brown"
	}
	return shade + hue
}

// PartDescription describes one part of a built model from what the build
// measured: how much of the product's outline it covers and its colour (spec §3
// "Part: id, name, description").
func PartDescription(p events.JobPart) string {
	pct := int(math.Round(p.Share * 100))
	pct = min(max(pct, 0), 100)
	name := strings.TrimSpace(p.Name)
	if name == "" {
		name = "This part"
	}
	out := fmt.Sprintf("%s covers %d%% of the product's outline", name, pct)
	if pct == 100 {
		out = name + " is the whole product (the build found one part)"
	}
	if c := ColorName(p.Color); c != "" {
		out += fmt.Sprintf("; its colour is %s (%s)", c, strings.ToUpper(p.Color))
	}
	return out + "."
}
