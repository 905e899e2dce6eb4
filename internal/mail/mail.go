// Package mail sends account mail (verification, password reset, notes)
// without ever losing it. A request queues a mail in its own transaction
// (Queue.Enqueue: a mail_outbox row with the address and the links, and a
// River `mail` job naming it); SendWorker in cmd/worker renders and sends it
// through the SMTP relay, retrying transient failures with backoff. Without
// a relay, DEV_MODE keeps mail as files under DATA_DIR/outbox, listed on the
// api's loopback-only /dev/mail page, so sign-up and reset work end to end
// on a laptop. No log line ever holds an address or a link.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Message is one plain-text e-mail.
type Message struct {
	// ID names the mail for good (the outbox row's id): it becomes the
	// Message-ID header, so a resend after a crash between the relay's 250
	// and the outbox delete carries the same id, and mail clients show one
	// message. Empty: no Message-ID (the relay adds one).
	ID      string    `json:"id,omitempty"`
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	SentAt  time.Time `json:"sentAt"`
}

// Sender delivers a message or says why not.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP delivers through a relay at Addr (host:port), with STARTTLS when the
// relay offers it and PLAIN auth when a user is set (net/smtp refuses PLAIN
// over an unencrypted non-local link). Every step of a send shares one
// deadline (Timeout, or the context's if sooner), so a relay that accepts
// the connection and then stalls cannot hold a worker slot.
type SMTP struct {
	Addr     string
	User     string
	Password string
	From     string
	// Timeout bounds one whole send; zero means DefaultSMTPTimeout.
	Timeout time.Duration
}

// DefaultSMTPTimeout bounds one send when SMTP.Timeout is zero.
const DefaultSMTPTimeout = 30 * time.Second

// Send implements Sender. SMTP replies come back as *textproto.Error, which
// Permanent classifies.
func (s SMTP) Send(ctx context.Context, m Message) error {
	from, err := mail.ParseAddress(s.From)
	if err != nil {
		return permanent{fmt.Errorf("parse MAIL_FROM %q: %w", s.From, err)}
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultSMTPTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("connect to SMTP relay %s: %w", s.Addr, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(s.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("greeting from SMTP relay %s: %w", s.Addr, err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host}); err != nil {
			return fmt.Errorf("STARTTLS with %s: %w", s.Addr, err)
		}
	}
	if s.User != "" {
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Password, host)); err != nil {
			return fmt.Errorf("authenticate to %s: %w", s.Addr, err)
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return fmt.Errorf("MAIL FROM: %w", err)
	}
	if err := c.Rcpt(m.To); err != nil {
		return fmt.Errorf("RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if _, err := w.Write(Render(s.From, m)); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("end of message: %w", err)
	}
	_ = c.Quit()
	return nil
}

// permanent marks a failure no retry can fix (a bad MAIL_FROM).
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Permanent reports whether a send failed for good: an SMTP 5xx reply
// (unknown mailbox, rejected content, refused auth) or a configuration
// error. Everything else (4xx replies, refused connections, timeouts) is
// transient and worth retrying.
func Permanent(err error) bool {
	var p permanent
	if errors.As(err, &p) {
		return true
	}
	var te *textproto.Error
	return errors.As(err, &te) && te.Code >= 500 && te.Code < 600
}

// Render builds the RFC 5322 message bytes.
func Render(from string, m Message) []byte {
	clean := func(s string) string { return strings.NewReplacer("\r", "", "\n", " ").Replace(s) }
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n", clean(from), clean(m.To), clean(m.Subject), time.Now().UTC().Format(time.RFC1123Z))
	if m.ID != "" {
		fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", clean(m.ID), messageIDHost(from))
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(m.Body, "\n", "\r\n"))
	return []byte(b.String())
}

// messageIDHost is the right-hand side of a Message-ID: the sender's
// domain, or photo3d.local when MAIL_FROM has none.
func messageIDHost(from string) string {
	if a, err := mail.ParseAddress(from); err == nil {
		if at := strings.LastIndexByte(a.Address, '@'); at >= 0 && at < len(a.Address)-1 {
			return a.Address[at+1:]
		}
	}
	return "photo3d.local"
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

// Log stands in for a relay when SMTP_ADDR is unset. In DEV_MODE (Outbox or
// Dir set) it keeps the message where the developer reads it: the in-memory
// Outbox and/or JSON files under Dir, which the api lists at /dev/mail.
// Otherwise the mail is dropped with a warning. The log never holds the
// address or the body: bodies carry single-use links, which are secrets, and
// logs outlive them.
type Log struct {
	Logger *slog.Logger
	Outbox *Outbox
	// Dir, in DEV_MODE only, keeps every message as a JSON file
	// (<unix nanoseconds>-<random>.json, owner-only): a developer, or a browser
	// test, can open a new account's verification link without signing in.
	Dir string
}

// Send implements Sender.
func (l Log) Send(_ context.Context, m Message) error {
	if m.SentAt.IsZero() {
		m.SentAt = time.Now().UTC()
	}
	if l.Outbox == nil && l.Dir == "" {
		l.Logger.Warn("mail dropped: no SMTP_ADDR configured", "subject", m.Subject)
		return nil
	}
	if l.Outbox != nil {
		l.Outbox.Add(m)
	}
	if l.Dir != "" {
		if err := writeMailFile(l.Dir, m); err != nil {
			return fmt.Errorf("keep mail in the dev mail directory: %w", err)
		}
	}
	l.Logger.Info("mail kept in the dev outbox (no SMTP_ADDR configured)", "subject", m.Subject)
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

// Lister lists kept dev mail, newest first.
type Lister interface {
	List() []Message
}

// Dir reads the dev mail files a Log with the same Dir wrote (the worker
// writes them; the api lists them).
type Dir string

// List implements Lister; unreadable files are skipped. At most 200.
func (d Dir) List() []Message {
	entries, err := os.ReadDir(string(d))
	if err != nil {
		return nil
	}
	var out []Message
	for i := len(entries) - 1; i >= 0 && len(out) < 200; i-- {
		e := entries[i]
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(string(d), e.Name()))
		if err != nil {
			continue
		}
		var m Message
		if json.Unmarshal(b, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}
