package mail_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// smtpServer is a small SMTP server speaking the real protocol (greeting,
// EHLO, MAIL, RCPT, DATA with dot-stuffing, QUIT) on a fixed loopback port,
// so net/smtp in mail.SMTP talks to it as to a relay. It can be taken down
// (the port refuses connections), made to answer a temporary 451 or a
// permanent 550 to RCPT, and brought back on the same port.
type smtpServer struct {
	t    *testing.T
	addr string

	mu        sync.Mutex
	ln        net.Listener
	rcptReply string // "" accepts
	received  chan string
	sessions  int
}

func newSMTPServer(t *testing.T) *smtpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpServer{t: t, addr: ln.Addr().String(), received: make(chan string, 16)}
	s.serve(ln)
	t.Cleanup(s.down)
	return s
}

// down closes the port: connections are refused until up.
func (s *smtpServer) down() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		_ = s.ln.Close()
		s.ln = nil
	}
}

// up listens again on the same port.
func (s *smtpServer) up() {
	ln, err := net.Listen("tcp", s.addr)
	require.NoError(s.t, err)
	s.serve(ln)
}

// replyToRcpt sets the answer to RCPT TO ("" accepts).
func (s *smtpServer) replyToRcpt(line string) {
	s.mu.Lock()
	s.rcptReply = line
	s.mu.Unlock()
}

func (s *smtpServer) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

func (s *smtpServer) serve(ln net.Listener) {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.session(c)
		}
	}()
}

func (s *smtpServer) session(c net.Conn) {
	defer c.Close()
	s.mu.Lock()
	s.sessions++
	s.mu.Unlock()
	rd := bufio.NewReader(c)
	say := func(line string) { _, _ = io.WriteString(c, line+"\r\n") }
	say("220 test.local ESMTP ready")
	var data strings.Builder
	inData, rcpt := false, ""
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return
		}
		if inData {
			if line == ".\r\n" {
				inData = false
				s.received <- "RCPT " + rcpt + "\r\n" + data.String()
				data.Reset()
				say("250 2.0.0 queued")
				continue
			}
			data.WriteString(strings.TrimPrefix(line, "."))
			continue
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"):
			say("250-test.local")
			say("250 8BITMIME")
		case strings.HasPrefix(cmd, "HELO"):
			say("250 test.local")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			say("250 2.1.0 ok")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			s.mu.Lock()
			reply := s.rcptReply
			s.mu.Unlock()
			if reply != "" {
				say(reply)
				continue
			}
			rcpt = strings.Trim(strings.TrimSpace(line)[len("RCPT TO:"):], "<>")
			say("250 2.1.5 ok")
		case cmd == "DATA":
			inData = true
			say("354 end with <CRLF>.<CRLF>")
		case cmd == "RSET", cmd == "NOOP":
			say("250 ok")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("502 5.5.2 command not recognised")
		}
	}
}
