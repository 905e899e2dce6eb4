package mail_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/mail/smtptest"
)

// A mail goes out through a relay speaking SMTP, headers flattened (no
// injection), and names itself with a Message-ID built from its id, so a
// resend after a crash is the same message to the recipient's mail client.
func TestSMTPDelivers(t *testing.T) {
	t.Parallel()
	relay, err := smtptest.New()
	require.NoError(t, err)
	t.Cleanup(relay.Close)
	s := mail.SMTP{Addr: relay.Addr(), From: "Photo3D <no-reply@photo3d.example>"}
	msg := mail.Message{ID: "mail-42", To: "ada@example.com", Subject: "Reset\r\nBcc: evil@x", Body: "line 1\nline 2"}
	require.NoError(t, s.Send(context.Background(), msg))
	require.NoError(t, s.Send(context.Background(), msg))
	for range 2 {
		select {
		case got := <-relay.Received:
			require.Equal(t, "ada@example.com", got.To)
			require.Contains(t, got.Data, "To: ada@example.com\r\n")
			require.Contains(t, got.Data, "Subject: Reset Bcc: evil@x\r\n", "header injection is flattened")
			require.Contains(t, got.Data, "Message-ID: <mail-42@photo3d.example>\r\n", "the same id on every send")
			require.Contains(t, got.Data, "line 1\r\nline 2")
		case <-time.After(5 * time.Second):
			t.Fatal("no message arrived")
		}
	}
	require.NotContains(t, string(mail.Render("Photo3D <no-reply@photo3d.example>", mail.Message{To: "b@example.com"})), "Message-ID",
		"a message without an id gets its Message-ID from the relay")
}

func TestLogKeepsOutboxNewestFirst(t *testing.T) {
	t.Parallel()
	box := mail.NewOutbox(2)
	l := mail.Log{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Outbox: box}
	for _, s := range []string{"a", "b", "c"} {
		require.NoError(t, l.Send(context.Background(), mail.Message{To: "x@y.z", Subject: s}))
	}
	list := box.List()
	require.Len(t, list, 2)
	require.Equal(t, "c", list[0].Subject)
	require.Equal(t, "b", list[1].Subject)
	require.False(t, list[0].SentAt.IsZero())
}

func TestLogWithoutOutboxNeverLogsTheBody(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := mail.Log{Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	require.NoError(t, l.Send(context.Background(), mail.Message{To: "a@example.com", Subject: "Reset your password", Body: "https://x/reset-password?token=SECRET123"}))
	require.Contains(t, buf.String(), "mail dropped")
	require.NotContains(t, buf.String(), "SECRET123")
	require.NotContains(t, buf.String(), "a@example.com")
}

// DEV_MODE keeps each mail as a JSON file too (the browser tests open a new
// account's verification link from there), readable by its owner only.
func TestLogKeepsMailFilesInDevMode(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "outbox")
	l := mail.Log{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Outbox: mail.NewOutbox(5), Dir: dir}
	require.NoError(t, l.Send(context.Background(), mail.Message{To: "ada@example.com", Subject: "Verify", Body: "open /verify-email?token=abc"}))
	require.NoError(t, l.Send(context.Background(), mail.Message{To: "bob@example.com", Subject: "Reset", Body: "open /reset-password?token=def"}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	require.Less(t, entries[0].Name(), entries[1].Name(), "names sort by time")
	info, err := entries[0].Info()
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	var m mail.Message
	b, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "ada@example.com", m.To)
	require.Contains(t, m.Body, "/verify-email?token=abc")

	// The api lists them, newest first.
	list := mail.Dir(dir).List()
	require.Len(t, list, 2)
	require.Equal(t, "bob@example.com", list[0].To)
}
