package mail_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/photo3d/photo3d/internal/mail"
)

// fakeSMTP accepts one message and returns what it received.
func fakeSMTP(t *testing.T) (string, <-chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		rd := bufio.NewReader(c)
		say := func(s string) { _, _ = io.WriteString(c, s+"\r\n") }
		say("220 fake ESMTP")
		var data strings.Builder
		inData := false
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			if inData {
				if line == ".\r\n" {
					inData = false
					got <- data.String()
					say("250 queued")
					continue
				}
				data.WriteString(line)
				continue
			}
			switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
			case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
				say("250 fake")
			case cmd == "DATA":
				inData = true
				say("354 go ahead")
			case cmd == "QUIT":
				say("221 bye")
				return
			default:
				say("250 ok")
			}
		}
	}()
	return ln.Addr().String(), got
}

func TestSMTPDelivers(t *testing.T) {
	t.Parallel()
	addr, got := fakeSMTP(t)
	s := mail.SMTP{Addr: addr, From: "Photo3D <no-reply@photo3d.local>"}
	err := s.Send(context.Background(), mail.Message{To: "ada@example.com", Subject: "Reset\r\nBcc: evil@x", Body: "line 1\nline 2"})
	require.NoError(t, err)
	select {
	case msg := <-got:
		require.Contains(t, msg, "To: ada@example.com\r\n")
		require.Contains(t, msg, "Subject: Reset Bcc: evil@x\r\n", "header injection is flattened")
		require.Contains(t, msg, "line 1\r\nline 2")
	case <-time.After(5 * time.Second):
		t.Fatal("no message arrived")
	}
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
