// Package onewrite sends a small HTTP/1 response (status line, headers and
// body) to the kernel in one write syscall.
//
// Why: net/http writes a response's headers into its connection's 4 KiB
// buffer and the body through it, so a response of more than 4 KiB in all
// leaves in two or more write syscalls: the share page (about 4.2 KB of HTML
// and 650 bytes of headers) went out as a 4,096-byte and a 760-byte write,
// where nginx sends one writev. On loopback a write syscall costs about as
// much as everything else a page view does (issue 33 item 3: 37 % of the
// api's CPU was in write syscalls under wrk).
//
// How: Listener wraps the server's listener so that each connection can hold
// its writes for a moment (a user-space TCP_CORK without the two extra
// setsockopt calls); ConnContext puts the connection on each request's
// context; Write holds the connection, lets net/http write the response
// into it, flushes, and sends everything held as one write. Nothing about
// the response changes: same status, headers and bytes, only fewer syscalls.
// On HTTP/2, on HEAD, or on a connection that did not come from Listener
// (httptest, a TLS listener), Write is an ordinary WriteHeader and Write.
package onewrite

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
)

// bufSize is net/http's per-connection write buffer (server.go:
// newBufioWriterSize(checkConnErrorWriter{c}, 4<<10)).
const bufSize = 4 << 10

// maxHold bounds what a connection holds: past it, what is held and the rest
// go out as they come (a bigger response gains nothing from one write).
const maxHold = 64 << 10

// Listener returns ln with connections that Write can hold (see the package
// comment). Serve with ConnContext as the server's ConnContext. Wrap the TCP
// listener itself: a TLS listener goes around it, never inside it (net/http
// recognises TLS by its *tls.Conn). A handler that hijacks the connection
// gets a *Conn, not a *net.TCPConn.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c}, nil
}

type connKey struct{}

// ConnContext is an http.Server ConnContext: it puts a Listener connection
// on the context of the requests it carries.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if oc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, connKey{}, oc)
	}
	return ctx
}

// Conn is a connection from Listener. Outside Write it passes every call
// through; net/http writes to a connection from one goroutine at a time (the
// connection's), and so does Write.
type Conn struct {
	net.Conn
	held *[]byte // non-nil while holding: what was written since
	err  error   // a failed send of held bytes: every later write fails too
}

var holdPool = sync.Pool{New: func() any { b := make([]byte, 0, 2*bufSize); return &b }}

func (c *Conn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.held == nil {
		return c.Conn.Write(p)
	}
	if len(*c.held)+len(p) > maxHold {
		if err := c.release(); err != nil {
			return 0, err
		}
		return c.Conn.Write(p)
	}
	*c.held = append(*c.held, p...)
	return len(p), nil
}

// ReadFrom keeps sendfile for streamed files (net/http looks for an
// io.ReaderFrom on its connection, and *net.TCPConn is one).
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok && c.held == nil && c.err == nil {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c}, r)
}

// CloseWrite keeps net/http's graceful close (it half-closes TCP connections).
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.New("onewrite: connection cannot half-close")
}

type writerOnly struct{ io.Writer }

func (c *Conn) hold() {
	c.held = holdPool.Get().(*[]byte)
}

// release sends what is held in one write and stops holding.
func (c *Conn) release() error {
	b := c.held
	if b == nil {
		return c.err
	}
	c.held = nil
	if len(*b) > 0 && c.err == nil {
		if _, err := c.Conn.Write(*b); err != nil {
			c.err = err
		}
	}
	*b = (*b)[:0]
	holdPool.Put(b)
	return c.err
}

// Write answers with status and body (headers as set on w), in one write
// syscall where the connection allows (see the package comment). Set
// Content-Length first: a response without one is chunked and gains nothing.
func Write(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	c, _ := r.Context().Value(connKey{}).(*Conn)
	if c == nil || c.held != nil || r.ProtoMajor != 1 || r.Method == http.MethodHead {
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
		return
	}
	// Held even when the response would fit net/http's buffer: copying a
	// few KB costs less than working out whether it fits.
	c.hold()
	defer func() { _ = c.release() }() // a panic below still sends what was written
	w.WriteHeader(status)
	_, _ = w.Write(body)
	_ = http.NewResponseController(w).Flush()
}
