package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/mail/smtptest"
)

// Merchant drives the public JSON API as a signed-in user would.
type Merchant struct {
	Base  string
	Token string
	HTTP  *http.Client
}

// Call sends one request and decodes the envelope's data into out.
func (m *Merchant) Call(ctx context.Context, method, path string, body any, contentType string, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return err
		}
		rd, contentType = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, m.Base+path, rd)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if m.Token != "" {
		req.Header.Set("Authorization", "Bearer "+m.Token)
	}
	res, err := m.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *struct{ Code, Message string }
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: status %d: %w", method, path, res.StatusCode, err)
	}
	if !env.Success {
		msg := ""
		if env.Error != nil {
			msg = env.Error.Code + ": " + env.Error.Message
		}
		return fmt.Errorf("%s %s: status %d: %s", method, path, res.StatusCode, msg)
	}
	if out != nil {
		return json.Unmarshal(env.Data, out)
	}
	return nil
}

// Verifier proves a new merchant's address the way its owner would: a new
// password account signs in only after that (issue 28 item 14).
type Verifier func(ctx context.Context, m *Merchant, email string) error

// MailDirVerifier opens the verification link that a DEV_MODE api kept as a
// mail file under dir (DATA_DIR/outbox).
func MailDirVerifier(dir string) Verifier {
	link := regexp.MustCompile(`/verify-email\?token=([A-Za-z0-9_-]+)`)
	return func(ctx context.Context, m *Merchant, email string) error {
		// The worker sends account mail from a River job (issue 31 part 4),
		// a moment after sign-up answers: look for up to 20 seconds.
		deadline := time.Now().Add(20 * time.Second)
		for {
			token, err := findLink(dir, email, link)
			if token != "" {
				return m.Call(ctx, "POST", "/api/auth/verify-email", map[string]any{"token": token}, "", nil)
			}
			if time.Now().After(deadline) {
				if err != nil {
					return err
				}
				return fmt.Errorf("no verification mail to %s in %s", email, dir)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// findLink is the token of the newest verification link mailed to email.
func findLink(dir, email string, link *regexp.Regexp) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read the dev mail directory (is the worker in DEV_MODE with this DATA_DIR?): %w", err)
	}
	for i := len(entries) - 1; i >= 0; i-- { // newest first
		b, err := os.ReadFile(filepath.Join(dir, entries[i].Name()))
		if err != nil {
			continue
		}
		var msg struct{ To, Body string }
		if json.Unmarshal(b, &msg) != nil || !strings.EqualFold(msg.To, email) {
			continue
		}
		if found := link.FindStringSubmatch(msg.Body); found != nil {
			return found[1], nil
		}
	}
	return "", nil
}

// MailVerifier opens the verification link that the stack's workers sent
// through its SMTP relay (Stack.Mail), as the merchant would from their
// inbox. The harness never reads or writes the tables that hold personal
// data (user_pii, mail_outbox): the address is proven by the mail alone.
func MailVerifier(relay *smtptest.Server) Verifier {
	link := regexp.MustCompile(`/verify-email\?token=([A-Za-z0-9_-]+)`)
	return func(ctx context.Context, m *Merchant, email string) error {
		// The worker sends account mail from a River job, a moment after
		// sign-up answers (and later still while workers are being killed).
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		token, err := relay.WaitFor(wctx, email, link)
		if err != nil {
			return fmt.Errorf("verify %s: %w (are the workers running with SMTP_ADDR=%s?)", email, err, relay.Addr())
		}
		return m.Call(ctx, "POST", "/api/auth/verify-email", map[string]any{"token": token}, "", nil)
	}
}

// SignUp creates a merchant with a Pro trial and at least credits AI credits
// (bought in packs with test-mode billing); verify proves its address.
func SignUp(ctx context.Context, base string, credits int, verify Verifier) (*Merchant, error) {
	m := &Merchant{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: 30 * time.Second}}
	var auth struct{ Token string }
	email := fmt.Sprintf("scale.%d@example.com", time.Now().UnixNano())
	// Sign-up answers 202 without a token (no account enumeration); the
	// new account signs in once its address is verified.
	if err := m.Call(ctx, "POST", "/api/auth/signup", map[string]any{"email": email, "password": "scale test 1234", "name": "Scale Test"}, "", nil); err != nil {
		return nil, err
	}
	if err := verify(ctx, m, email); err != nil {
		return nil, err
	}
	if err := m.Call(ctx, "POST", "/api/auth/login", map[string]any{"email": email, "password": "scale test 1234"}, "", &auth); err != nil {
		return nil, err
	}
	m.Token = auth.Token
	if err := m.Call(ctx, "POST", "/api/subscription/trial", map[string]any{}, "", nil); err != nil {
		return nil, err
	}
	if packs := (credits + 19) / 20; packs > 0 {
		if err := m.Call(ctx, "POST", "/api/subscription/addons", map[string]any{"kind": "credits", "amount": packs * 20}, "", nil); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Upload sends photo i (each one different) and returns its image URL.
func (m *Merchant) Upload(ctx context.Context, i int) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", fmt.Sprintf("vase-%d.png", i))
	if err != nil {
		return "", err
	}
	if _, err := fw.Write(Photo(i)); err != nil {
		return "", err
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	var up struct {
		URL      string `json:"url"`
		ImageURL string `json:"imageURL"`
	}
	if err := m.Call(ctx, "POST", "/api/uploads/content", body.Bytes(), mw.FormDataContentType(), &up); err != nil {
		return "", err
	}
	if up.ImageURL != "" {
		return up.ImageURL, nil
	}
	return up.URL, nil
}

// CreateJob starts a build from an uploaded image and returns the job id.
func (m *Merchant) CreateJob(ctx context.Context, imageURL string) (string, error) {
	var job struct{ ID string }
	if err := m.Call(ctx, "POST", "/api/jobs", map[string]any{"imageURL": imageURL}, "", &job); err != nil {
		return "", err
	}
	return job.ID, nil
}

// Credits is the merchant's credit usage as the API reports it.
type Credits struct {
	Used     int64 `json:"aiCreditsUsed"`
	Reserved int64 `json:"aiCreditsReserved"`
}

// Credits reads GET /api/subscription.
func (m *Merchant) Credits(ctx context.Context) (Credits, error) {
	var c Credits
	err := m.Call(ctx, "GET", "/api/subscription", nil, "", &c)
	return c, err
}

// Photo draws product photo i: a vase whose colour and outline vary with i,
// so no two uploads are the same bytes.
func Photo(i int) []byte {
	const side = 320
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	hue := uint8(40 + (i*37)%180)
	width := 35 + float64(i%7)*3
	for y := range side {
		half := 0.0
		if y > 40 && y < 290 {
			half = width + 50*math.Sin(float64(y-40)/250*math.Pi)
		}
		for x := range side {
			c := color.RGBA{255, 255, 255, 255}
			if math.Abs(float64(x)-side/2) < half {
				c = color.RGBA{200, hue + uint8(y%30), 40, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}
