// Package webhook sends merchants' integrations signed HTTP callbacks when
// something happens in their workspace (a model is ready, a product is
// published, a shopper leaves an email…).
//
// Nothing is sent from a request: the "webhooks" projection in the worker
// turns domain events into delivery rows and River jobs in one transaction
// (one row per endpoint and event, so replays never duplicate), and
// DeliverWorker posts them, signed Stripe-style, retrying with exponential
// backoff for WEBHOOK_RETRY_WINDOW (24 h) after the first attempt. Outbound
// connections go through Guard, which refuses non-public addresses after DNS
// resolution (SSRF).
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// The event types a merchant can subscribe to (issue 17), and the test event.
const (
	EventJobCompleted     = "job.completed"
	EventJobFailed        = "job.failed"
	EventProductPublished = "product.published"
	EventViewsLow         = "publication.views_low"
	EventLeadCaptured     = "lead.captured"
	EventTest             = "webhook.test"
)

// EventTypes lists the subscribable types in the order the settings panel shows them.
var EventTypes = []string{EventJobCompleted, EventJobFailed, EventProductPublished, EventViewsLow, EventLeadCaptured}

// Limits on what a merchant registers.
const (
	MaxEndpoints    = 10
	MaxURLLength    = 2048
	MinSecretLength = 16
	MaxSecretLength = 128
	MaxLogLimit     = 100
	// AttemptTimeout bounds one delivery attempt, connection included.
	AttemptTimeout = 10 * time.Second
	// maxResponseBytes of the receiver's answer are kept in the log: enough to
	// debug, too little to turn the log into storage for someone else's data.
	maxResponseBytes = 1024
	// ViewsLowPercent: publication.views_low fires when less than 10 % of the
	// public-views allowance is left, i.e. 90 % or more is used.
	ViewsLowPercent = 90
)

// Headers of a delivery.
const (
	HeaderSignature = "Photo3D-Signature"
	HeaderEvent     = "Photo3D-Event"
	HeaderDelivery  = "Photo3D-Delivery"
)

// Sign computes the Photo3D-Signature header value for body sent at t:
// t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>. Signing the
// timestamp with the body lets receivers refuse replays of old deliveries.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a Photo3D-Signature header the way a receiver should: the
// HMAC in constant time, and the timestamp within tolerance of now.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	at := time.Unix(sec, 0)
	if now.Sub(at) > tolerance || at.Sub(now) > tolerance {
		return false
	}
	want := Sign(secret, at, body)
	_, wantSig, _ := strings.Cut(want, ",v1=")
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(wantSig)) {
			return true
		}
	}
	return false
}

// newSecret returns a "whsec_"-prefixed secret with 32 random bytes, shown once.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate webhook secret: %w", err)
	}
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b), nil
}

var (
	errURL = fault.Invalidf("invalid_webhook_url",
		"Enter the endpoint's full https:// URL (at most %d characters, without a user name or password).", MaxURLLength)
	errURLPrivate = fault.Invalidf("invalid_webhook_url",
		"Webhooks can only call public internet addresses, not loopback, private, link-local or other special-purpose ones.")
	errURLNumeric = fault.Invalidf("invalid_webhook_url",
		"Write the endpoint's host as a name, or as an IP address in its usual form (four decimal numbers such as 93.184.215.14, or IPv6 in brackets such as [2606:4700::1111]).")
	errEvents = fault.Invalidf("invalid_webhook_events",
		"Choose at least one event from: %s.", strings.Join(EventTypes, ", "))
	errSecret = fault.Invalidf("invalid_webhook_secret",
		"The signing secret must be %d to %d printable characters without spaces.", MinSecretLength, MaxSecretLength)
	errTooMany = fault.New(fault.Conflict, "too_many_webhooks",
		fmt.Sprintf("You can register at most %d webhook endpoints. Delete one first.", MaxEndpoints))
	errNotFound = fault.NotFoundf("Webhook not found.")
	errLimit    = fault.Invalidf("invalid_limit", "limit must be a whole number from 1 to %d.", MaxLogLimit)
)

// checkURL validates an endpoint URL: absolute https (http only with
// allowPrivate), a host, no userinfo (credentials would be stored and logged
// as part of the URL; use the signature instead), and — when the host is an
// IP literal — a global unicast address written canonically; a host that is
// a number in disguise (2130706433, 0x7f.1, 127.1, 0177.0.0.1) is refused.
// Names are checked after DNS, at delivery (Guard).
func checkURL(raw string, allowPrivate bool) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > MaxURLLength || strings.ContainsAny(raw, " \t\r\n") {
		return "", errURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return "", errURL
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowPrivate {
			return "", errURL
		}
	default:
		return "", errURL
	}
	host := u.Hostname()
	if host == "" {
		return "", errURL
	}
	if !allowPrivate {
		ip, canonical, isIP := canonicalIP(host)
		switch {
		case isIP && !canonical, !isIP && numericHost(host):
			return "", errURLNumeric
		case isIP && addressClass(ip) != "":
			return "", errURLPrivate
		case strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), ".localhost"):
			return "", errURLPrivate
		}
	}
	u.Fragment = ""
	return u.String(), nil
}

// checkEvents returns the chosen types deduplicated in canonical order.
func checkEvents(in []string) ([]string, error) {
	if len(in) == 0 || len(in) > 20 {
		return nil, errEvents
	}
	var out []string
	for _, t := range EventTypes {
		if slices.Contains(in, t) {
			out = append(out, t)
		}
	}
	for _, t := range in {
		if !slices.Contains(EventTypes, t) {
			return nil, errEvents
		}
	}
	return out, nil
}

func checkSecret(s string) error {
	if len(s) < MinSecretLength || len(s) > MaxSecretLength {
		return errSecret
	}
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return errSecret
		}
	}
	return nil
}

// eventID derives the public id of a domain event from its log position, so
// every endpoint (and every replay) sees the same id for the same fact while
// the global event count stays private.
func eventID(position int64) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "webhook-event/%d", position))
	return "evt_" + hex.EncodeToString(sum[:12])
}
