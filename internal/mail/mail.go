// Package mail sends account mail (password resets). Production uses an
// SMTP relay; without one, mail is written to the log and, in DEV_MODE, kept
// in an in-memory outbox the developer can read at GET /api/dev/outbox and
// as files under DATA_DIR/outbox, so the sign-up and reset flows work end to
// end on a laptop with no mail server.
package mail

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Message is one plain-text e-mail.
type Message struct {
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	SentAt  time.Time `json:"sentAt"`
}

// Sender delivers a message or says why not.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP delivers through a relay at Addr (host:port), with PLAIN auth when a
// user is set (net/smtp refuses PLAIN over an unencrypted non-local link).
type SMTP struct {
	Addr     string
	User     string
	Password string
	From     string
}

// Send implements Sender.
func (s SMTP) Send(ctx context.Context, m Message) error {
	from, err := mail.ParseAddress(s.From)
	if err != nil {
		return fmt.Errorf("parse MAIL_FROM %q: %w", s.From, err)
	}
	var auth smtp.Auth
	if s.User != "" {
		host, _, _ := net.SplitHostPort(s.Addr)
		auth = smtp.PlainAuth("", s.User, s.Password, host)
	}
	done := make(chan error, 1)
	go func() { done <- smtp.SendMail(s.Addr, auth, from.Address, []string{m.To}, Render(s.From, m)) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("send mail via %s: %w", s.Addr, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("send mail via %s: %w", s.Addr, ctx.Err())
	}
}

// Render builds the RFC 5322 message bytes.
func Render(from string, m Message) []byte {
	clean := func(s string) string { return strings.NewReplacer("\r", "", "\n", " ").Replace(s) }
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n", clean(from), clean(m.To), clean(m.Subject), time.Now().UTC().Format(time.RFC1123Z))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(m.Body, "\n", "\r\n"))
	return []byte(b.String())
}

// Outbox keeps the most recent messages in memory (newest first).
type Outbox struct {
	mu   sync.Mutex
	max  int
	msgs []Message
}

// NewOutbox keeps at most max messages.
func NewOutbox(max int) *Outbox { return &Outbox{max: max} }

// Add records a message.
func (o *Outbox) Add(m Message) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.msgs = append([]Message{m}, o.msgs...)
	if len(o.msgs) > o.max {
		o.msgs = o.msgs[:o.max]
	}
}

// List returns a copy of the kept messages, newest first.
func (o *Outbox) List() []Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Message(nil), o.msgs...)
}

// Log writes mail to the log instead of sending it, and to Outbox when set
// (DEV_MODE). Only in DEV_MODE is the body logged: it holds single-use reset
// links, which are secrets, and logs outlive them. Without SMTP and without
// DEV_MODE the log says that a mail was dropped; configure SMTP_ADDR in
// production.
type Log struct {
	Logger *slog.Logger
	Outbox *Outbox
	// Dir, in DEV_MODE only, also keeps every message as a JSON file
	// (<unix nanoseconds>-<random>.json, owner-only): a developer, or a browser
	// test, can open a new account's verification link without signing in,
	// which the outbox route requires and a new account cannot do before
	// verifying.
	Dir string
}

// Send implements Sender.
func (l Log) Send(_ context.Context, m Message) error {
	if m.SentAt.IsZero() {
		m.SentAt = time.Now().UTC()
	}
	if l.Outbox == nil {
		l.Logger.Warn("mail dropped: no SMTP_ADDR configured (the body is logged only in DEV_MODE)", "to", m.To, "subject", m.Subject)
		return nil
	}
	l.Logger.Info("mail not sent (no SMTP_ADDR configured)", "to", m.To, "subject", m.Subject, "body", m.Body)
	l.Outbox.Add(m)
	if l.Dir != "" {
		if err := writeMailFile(l.Dir, m); err != nil {
			l.Logger.Warn("keep mail in the dev mail directory", "dir", l.Dir, "err", err)
		}
	}
	return nil
}

// writeMailFile stores m as JSON in dir; names sort by time.
func writeMailFile(dir string, m Message) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%020d-%s.json", time.Now().UnixNano(), rand.Text()[:8])
	tmp := filepath.Join(dir, "."+name)
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// Async sends in the background so a request's timing never depends on
// whether mail went out (which would reveal whether an account exists).
// Wait drains pending sends at shutdown.
type Async struct {
	Next    Sender
	Logger  *slog.Logger
	Timeout time.Duration
	wg      sync.WaitGroup
}

// Send implements Sender: it returns at once; failures are logged.
func (a *Async) Send(ctx context.Context, m Message) error {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		timeout := a.Timeout
		if timeout <= 0 {
			timeout = 30 * time.Second
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		if err := a.Next.Send(sctx, m); err != nil {
			a.Logger.Error("send mail failed", "to", m.To, "subject", m.Subject, "err", err)
		}
	}()
	return nil
}

// Wait blocks until every background send has finished.
func (a *Async) Wait() { a.wg.Wait() }
