package publish

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"strings"
	"sync"
	"time"
)

// crawlerMarkers are lower-case substrings of the user agents of search
// crawlers and link unfurlers (chat apps and social sites fetching a preview).
// Their requests get the full page but never cost the owner a view.
var crawlerMarkers = byteStrings(
	"bot", "crawl", "spider", "slurp", "facebookexternalhit", "facebookcatalog", "meta-externalagent",
	"embedly", "iframely", "whatsapp", "skypeuripreview", "vkshare", "pinterest", "bitly",
	"outbrain", "quora link preview", "redditbot", "tumblr", "flipboard", "nuzzel", "mastodon",
	"google-inspectiontool", "feedfetcher", "lighthouse", "preview", "validator", "ia_archiver",
)

func byteStrings(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, v := range s {
		out[i] = []byte(v)
	}
	return out
}

// IsCrawler reports whether a user agent belongs to a known crawler or unfurler.
// It runs on every page view: the user agent is lower-cased (ASCII: every
// marker is ASCII) into a stack buffer rather than a new string.
func IsCrawler(ua string) bool {
	var buf [512]byte
	lower := buf[:0]
	if len(ua) > len(buf) {
		lower = make([]byte, 0, len(ua))
	}
	for i := 0; i < len(ua); i++ {
		c := ua[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
	}
	for _, m := range crawlerMarkers {
		if bytes.Contains(lower, m) {
			return true
		}
	}
	return false
}

var prefetchHeaders = []string{"Sec-Purpose", "Purpose", "X-Purpose", "X-Moz"}

// isPrefetch reports a speculative load (link prefetch, speculation rules):
// the shopper has not looked yet.
func isPrefetch(r *http.Request) bool {
	for _, h := range prefetchHeaders { // canonical keys: the map is read directly
		if v := r.Header[h]; len(v) > 0 && strings.Contains(strings.ToLower(v[0]), "prefetch") {
			return true
		}
	}
	return false
}

// counts reports whether a request to a public page is a view the owner pays
// for: a GET by a browser that is not prefetching.
func counts(r *http.Request) bool {
	return r.Method == http.MethodGet && !IsCrawler(r.UserAgent()) && !isPrefetch(r)
}

// recentViewers remembers who saw which page in the last window, so that a
// reload does not cost the owner another view. It stores only a keyed hash of
// (slug, IP, user agent) under a random per-process key: nothing that
// identifies a person is kept, and the hashes cannot be reversed or linked
// across restarts. Memory is bounded: past the limit, expired entries are
// swept and then arbitrary ones dropped (a dropped viewer is counted again,
// which only ever errs towards counting).
type recentViewers struct {
	window time.Duration
	limit  int
	salt   []byte
	shards [32]viewerShard
}

type viewerShard struct {
	mu   sync.Mutex
	seen map[[16]byte]int64 // key → last counted view, unix nanoseconds
}

func newRecentViewers(window time.Duration, limit int) *recentViewers {
	v := &recentViewers{window: window, limit: limit, salt: make([]byte, 32)}
	_, _ = rand.Read(v.salt)
	for i := range v.shards {
		v.shards[i].seen = map[[16]byte]int64{}
	}
	return v
}

func (v *recentViewers) key(slug, ip, ua string) [16]byte {
	m := hmac.New(sha256.New, v.salt)
	m.Write([]byte(slug))
	m.Write([]byte{0})
	m.Write([]byte(ip))
	m.Write([]byte{0})
	m.Write([]byte(ua))
	var k [16]byte
	copy(k[:], m.Sum(nil))
	return k
}

func (v *recentViewers) shard(k [16]byte) *viewerShard {
	return &v.shards[binary.LittleEndian.Uint32(k[:4])%uint32(len(v.shards))]
}

// recent reports whether k was counted within the window.
func (v *recentViewers) recent(k [16]byte, now time.Time) bool {
	s := v.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.seen[k]
	return ok && now.UnixNano()-at < int64(v.window)
}

// mark records a counted view of k at now.
func (v *recentViewers) mark(k [16]byte, now time.Time) {
	s := v.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	per := max(v.limit/len(v.shards), 1)
	if len(s.seen) >= per {
		cutoff := now.UnixNano() - int64(v.window)
		for x, at := range s.seen {
			if at < cutoff {
				delete(s.seen, x)
			}
		}
		for x := range s.seen {
			if len(s.seen) < per*9/10 {
				break
			}
			delete(s.seen, x)
		}
	}
	s.seen[k] = now.UnixNano()
}
