// Package describe writes a product's description with a language model
// ("Generate with AI", spec §4) through an OpenAI-compatible chat endpoint:
// POST {LLM_URL}/v1/chat/completions with LLM_MODEL and LLM_API_KEY. It is
// off unless LLM_URL is configured, and the web app hides the button then.
//
// What is sent is product data only: the product's name, tags, variant
// names and materials, part names and the current description. Never the
// merchant's name, email, brand, ids, or anything a shopper left: a
// third-party model sees nothing personal (see Facts).
package describe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/fault"
)

// User-facing failures, worded once.
var (
	// ErrOff: LLM_URL is not configured (the button is hidden; a direct call gets this).
	ErrOff = fault.New(fault.NotFound, "ai_not_configured", "Generating descriptions with AI is not set up on this server.")
	// ErrBusy: the model's server said 429.
	ErrBusy = fault.New(fault.RateLimited, "ai_busy", "The AI writer is busy right now. Please try again in a minute.")
	// ErrFailed: any other failure of the model's server (5xx, bad answer, timeout).
	ErrFailed = fault.New(fault.Unavailable, "ai_failed", "The AI writer could not write a description just now. Please try again later, or write it yourself.")
)

// MaxDescription is the longest description kept (the catalogue's limit).
const MaxDescription = 2000

// Config is the chat endpoint. URL is the server's base (LLM_URL, without
// /v1); Model and APIKey are LLM_MODEL and LLM_API_KEY (either may be empty
// for a local server).
type Config struct {
	URL    string
	Model  string
	APIKey string
	// Client sends the requests; nil: a client with a 30 s timeout.
	Client *http.Client
}

// Writer asks the model for descriptions.
type Writer struct {
	cfg Config
}

// New returns a writer, or nil when cfg.URL is empty (the feature is off).
func New(cfg Config) *Writer {
	cfg.URL = strings.TrimRight(strings.TrimSpace(cfg.URL), "/")
	if cfg.URL == "" {
		return nil
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 30 * time.Second}
	}
	return &Writer{cfg: cfg}
}

// Enabled reports whether descriptions can be generated (nil-safe).
func (w *Writer) Enabled() bool { return w != nil }

// Facts are everything the model is told about a product: product data
// only, never who sells it or who bought it.
type Facts struct {
	Name        string
	Description string   // the current one, to improve on ("" for none)
	Tags        []string // e.g. "ceramic"
	Variants    []string // "Name (material)"
	Parts       []string // the model's part names
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model,omitempty"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

const systemPrompt = "You write product descriptions for an online shop. Write 2 to 4 short, concrete sentences a shopper would find useful. " +
	"Use only the facts given; do not invent dimensions, prices, brands or claims. Plain text only: no markdown, no headings, no quotes around it."

// prompt is the user message: the facts, one per line.
func prompt(f Facts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Product: %s\n", clip(f.Name, 200))
	if len(f.Tags) > 0 {
		fmt.Fprintf(&b, "Tags: %s\n", clip(strings.Join(f.Tags, ", "), 300))
	}
	if len(f.Variants) > 0 {
		fmt.Fprintf(&b, "Variants: %s\n", clip(strings.Join(f.Variants, "; "), 500))
	}
	if len(f.Parts) > 0 {
		fmt.Fprintf(&b, "Parts: %s\n", clip(strings.Join(f.Parts, ", "), 300))
	}
	if strings.TrimSpace(f.Description) != "" {
		fmt.Fprintf(&b, "Current description (improve it): %s\n", clip(f.Description, 1000))
	}
	b.WriteString("Write the description.")
	return b.String()
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// Describe asks the model for a description of the product.
func (w *Writer) Describe(ctx context.Context, f Facts) (string, error) {
	if w == nil {
		return "", ErrOff
	}
	body, err := json.Marshal(chatRequest{Model: w.cfg.Model, Temperature: 0.7, MaxTokens: 300,
		Messages: []chatMessage{{Role: "system", Content: systemPrompt}, {Role: "user", Content: prompt(f)}}})
	if err != nil {
		return "", fmt.Errorf("encode chat request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", &fault.Error{Kind: ErrFailed.Kind, Code: ErrFailed.Code, Message: ErrFailed.Message, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if w.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+w.cfg.APIKey)
	}
	res, err := w.cfg.Client.Do(req)
	if err != nil {
		return "", failed(fmt.Errorf("call %s: %w", w.cfg.URL, err))
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", failed(fmt.Errorf("read chat answer: %w", err))
	}
	switch {
	case res.StatusCode == http.StatusTooManyRequests:
		return "", &fault.Error{Kind: ErrBusy.Kind, Code: ErrBusy.Code, Message: ErrBusy.Message, Err: errors.New("model server answered 429")}
	case res.StatusCode/100 != 2:
		return "", failed(fmt.Errorf("model server answered %d", res.StatusCode))
	}
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return "", failed(fmt.Errorf("chat answer without choices: %v", err))
	}
	text := clean(cr.Choices[0].Message.Content)
	if text == "" {
		return "", failed(errors.New("empty description"))
	}
	return text, nil
}

// failed is ErrFailed with its cause (logged, never shown).
func failed(cause error) error {
	return &fault.Error{Kind: ErrFailed.Kind, Code: ErrFailed.Code, Message: ErrFailed.Message, Err: cause}
}

// clean trims the model's answer to a plain description within MaxDescription.
func clean(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "\"“”")
	s = strings.TrimSpace(s)
	return clip(s, MaxDescription)
}
