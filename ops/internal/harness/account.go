package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Person is who signs up: the scenarios that erase accounts look for these
// exact strings in every table afterwards, so each must be distinctive.
type Person struct {
	Email, Password, Name string
}

// SignUpAs is SignUp for a given person: it signs up through the API,
// verifies the address from the mail (verify), signs in, starts the Pro
// trial and buys at least credits AI credits. It returns the merchant and
// the account's id (the key of its files and rows).
func SignUpAs(ctx context.Context, base string, p Person, credits int, verify Verifier) (*Merchant, string, error) {
	m := &Merchant{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: 30 * time.Second}}
	if err := m.Call(ctx, "POST", "/api/auth/signup", map[string]any{"email": p.Email, "password": p.Password, "name": p.Name}, "", nil); err != nil {
		return nil, "", err
	}
	if err := verify(ctx, m, p.Email); err != nil {
		return nil, "", err
	}
	var auth struct {
		Token string
		User  struct{ ID string }
	}
	if err := m.Call(ctx, "POST", "/api/auth/login", map[string]any{"email": p.Email, "password": p.Password}, "", &auth); err != nil {
		return nil, "", err
	}
	if auth.User.ID == "" {
		return nil, "", fmt.Errorf("sign-in of %s answered no user id", p.Email)
	}
	m.Token = auth.Token
	if err := m.Call(ctx, "POST", "/api/subscription/trial", map[string]any{}, "", nil); err != nil {
		return nil, "", err
	}
	if packs := (credits + 19) / 20; packs > 0 {
		if err := m.Call(ctx, "POST", "/api/subscription/addons", map[string]any{"kind": "credits", "amount": packs * 20}, "", nil); err != nil {
			return nil, "", err
		}
	}
	return m, auth.User.ID, nil
}

// Send makes one request as the merchant (JSON body when body is not nil;
// path may be a whole same-origin URL path with a query) and returns the
// status and the raw answer, whatever the status: the caller decides which
// statuses it expects. err is only for requests that got no answer.
func (m *Merchant) Send(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, m.Base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.Token != "" {
		req.Header.Set("Authorization", "Bearer "+m.Token)
	}
	res, err := m.HTTP.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, nil, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	return res.StatusCode, raw, nil
}

// WaitJob polls GET /api/jobs/{id} until the build has finished and
// returns its status (completed or failed), or ctx's error.
func (m *Merchant) WaitJob(ctx context.Context, id string) (string, error) {
	for {
		var j struct{ Status string }
		err := m.Call(ctx, "GET", "/api/jobs/"+id, nil, "", &j)
		if err == nil && (j.Status == "completed" || j.Status == "failed") {
			return j.Status, nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("still %s", j.Status)
			}
			return "", fmt.Errorf("job %s did not finish: %w (%w)", id, ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
