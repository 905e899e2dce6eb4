// Package onewritetest counts the write syscalls a server makes, for tests of
// internal/onewrite and of the pages served through it.
package onewritetest

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Counter is a listener whose connections record the size of every write they
// make: what the kernel sees, one entry per write syscall.
type Counter struct {
	net.Listener
	mu     sync.Mutex
	writes []int
}

// Wrap counts the writes of ln's connections.
func Wrap(ln net.Listener) *Counter { return &Counter{Listener: ln} }

func (l *Counter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, l: l}, nil
}

// Take returns the writes recorded since the last Take.
func (l *Counter) Take() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.writes
	l.writes = nil
	return w
}

// Settle waits until the server has written n times (a client reads the
// response before the server's last write call returns) and a moment more, so
// that a further write would be seen, and returns the writes.
func (l *Counter) Settle(t testing.TB, n int) []int {
	t.Helper()
	var got []int
	require.Eventually(t, func() bool {
		got = append(got, l.Take()...)
		return len(got) >= n
	}, 2*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	return append(got, l.Take()...)
}

type conn struct {
	net.Conn
	l *Counter
}

func (c *conn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.writes = append(c.l.writes, len(p))
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}
