// Package windowcount counts what a key did in a fixed time window, in
// bounded memory. The public pages' per-address view ceiling and the beacon
// endpoint's per-address and per-viewer budgets use it: all of them are keyed
// by values an attacker can mint at will (addresses of a big IPv6 prefix,
// viewer ids), so the table must never grow with them. Past MaxKeys the
// least recently used key is forgotten; a forgotten key starts again from
// zero, which for a busy attacker means it already spent the memory of
// MaxKeys other keys to get there.
package windowcount

import (
	"container/list"
	"sync"
	"time"
)

// Counter counts per key in fixed windows of Window, allowing at most Limit.
type Counter[K comparable] struct {
	limit   int
	window  int64
	maxKeys int

	mu  sync.Mutex
	m   map[K]*list.Element
	lru list.List // front: most recently used
}

type entry[K comparable] struct {
	key   K
	start int64 // window start, unix nanoseconds
	n     int
}

// New builds a counter of at most limit per key per window, remembering at
// most maxKeys keys.
func New[K comparable](limit int, window time.Duration, maxKeys int) *Counter[K] {
	if maxKeys <= 0 {
		maxKeys = 1
	}
	return &Counter[K]{limit: limit, window: int64(window), maxKeys: maxKeys, m: make(map[K]*list.Element)}
}

// Take adds n to key's count in the current window unless that would pass
// the limit; it reports whether it did.
func (c *Counter[K]) Take(key K, n int, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(key, now.UnixNano())
	if e.n+n > c.limit {
		return false
	}
	e.n += n
	return true
}

// TakeUpTo adds as much of n to key's count as the limit leaves and
// returns how much that was (0 to n).
func (c *Counter[K]) TakeUpTo(key K, n int, now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(key, now.UnixNano())
	got := max(min(n, c.limit-e.n), 0)
	e.n += got
	return got
}

// entry is key's count in the window at t, created (forgetting the least
// recently used key when full) or restarted as needed; c.mu is held.
func (c *Counter[K]) entry(key K, t int64) *entry[K] {
	el, ok := c.m[key]
	var e *entry[K]
	if ok {
		e = el.Value.(*entry[K])
		c.lru.MoveToFront(el)
		if t-e.start >= c.window {
			e.start, e.n = t, 0
		}
	} else {
		if len(c.m) >= c.maxKeys {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.m, old.Value.(*entry[K]).key)
		}
		e = &entry[K]{key: key, start: t}
		c.m[key] = c.lru.PushFront(e)
	}
	return e
}

// Give returns n a Take reserved but did not use.
func (c *Counter[K]) Give(key K, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		e := el.Value.(*entry[K])
		e.n = max(e.n-n, 0)
	}
}

// Len is how many keys are remembered now (never more than maxKeys).
func (c *Counter[K]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
