// Package smtptest is an SMTP relay for tests and for the ops harnesses
// (ops/chaos, ops/scaletest, ops/loadtest): it speaks the real protocol
// (greeting, EHLO, MAIL, RCPT, DATA with dot-stuffing, QUIT) on a loopback
// port, so the worker's mail.SMTP sender talks to it exactly as to a
// production relay. It keeps every message it accepted, can be taken down
// (the port refuses connections: an SMTP outage) and brought back on the
// same port, and can answer RCPT with a temporary or permanent refusal.
//
// It is the outside world's mail server, faked in-process; nothing in the
// product imports it.
package smtptest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Message is one accepted mail: its envelope recipient and the DATA as sent
// (headers and body, dot-stuffing undone, CRLF line ends).
type Message struct {
	To   string
	Data string
}

// Server is a running relay; New starts it.
type Server struct {
	addr string

	mu        sync.Mutex
	ln        net.Listener
	rcptReply string // "" accepts
	sessions  int
	kept      []Message
	changed   chan struct{} // closed and replaced whenever a message arrives

	// Received gets every accepted message as well (buffered; a message
	// that finds it full is only kept), for tests that take them in order.
	Received chan Message
}

// New listens on a free loopback port.
func New() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{addr: ln.Addr().String(), changed: make(chan struct{}), Received: make(chan Message, 64)}
	s.serve(ln)
	return s, nil
}

// Addr is host:port, the value for SMTP_ADDR.
func (s *Server) Addr() string { return s.addr }

// Down closes the port: connections are refused until Up.
func (s *Server) Down() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		_ = s.ln.Close()
		s.ln = nil
	}
}

// Up listens again on the same port.
func (s *Server) Up() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listen again on %s: %w", s.addr, err)
	}
	s.serve(ln)
	return nil
}

// Close takes the server down for good.
func (s *Server) Close() { s.Down() }

// ReplyToRcpt sets the answer to RCPT TO ("" accepts), e.g. "451 4.3.0 try
// again later" or "550 5.1.1 user unknown".
func (s *Server) ReplyToRcpt(line string) {
	s.mu.Lock()
	s.rcptReply = line
	s.mu.Unlock()
}

// Sessions is how many connections the relay has greeted.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// Messages is a copy of every accepted message, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.kept...)
}

// To is every accepted message whose envelope recipient is addr
// (case-insensitive), oldest first.
func (s *Server) To(addr string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if strings.EqualFold(m.To, addr) {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor waits until a message to addr whose DATA matches re has arrived
// and returns re's first group (or the whole match), or ctx's error.
func (s *Server) WaitFor(ctx context.Context, addr string, re *regexp.Regexp) (string, error) {
	for {
		s.mu.Lock()
		kept, changed := s.kept, s.changed
		s.mu.Unlock()
		for i := len(kept) - 1; i >= 0; i-- { // newest first
			if !strings.EqualFold(kept[i].To, addr) {
				continue
			}
			if m := re.FindStringSubmatch(kept[i].Data); m != nil {
				return m[len(m)-1], nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no mail to %s matching %s: %w", addr, re, ctx.Err())
		case <-changed:
		}
	}
}

func (s *Server) serve(ln net.Listener) {
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

func (s *Server) keep(m Message) {
	s.mu.Lock()
	s.kept = append(s.kept, m)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	select {
	case s.Received <- m:
	default:
	}
}

func (s *Server) session(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
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
				s.keep(Message{To: rcpt, Data: data.String()})
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
