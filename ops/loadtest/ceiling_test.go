package main

import (
	"testing"
)

// The ceiling server must answer with the api's headers as saved by curl -D, less
// the two net/http writes itself, or it would measure a different response.
func TestSavedHeaderKeepsTheAPIsHeaders(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nContent-Security-Policy: default-src 'none'; img-src 'self' data:\r\n" +
		"content-type: text/html; charset=utf-8\r\nDate: Mon, 30 Nov 2026 03:49:01 GMT\r\nContent-Length: 3847\r\n" +
		"Vary: Accept-Encoding\r\nVary: Cookie\r\n\r\n"
	h, err := savedHeader(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get("Content-Security-Policy"); got != "default-src 'none'; img-src 'self' data:" {
		t.Fatalf("CSP %q", got)
	}
	if got := h.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Fatalf("Content-Type %q", got)
	}
	if got := h.Values("Vary"); len(got) != 2 {
		t.Fatalf("Vary %q: both lines kept", got)
	}
	if h.Get("Date") != "" || h.Get("Content-Length") != "" {
		t.Fatalf("Date and Content-Length are net/http's own: %v", h)
	}
	if _, err := savedHeader("Content-Type: text/html\r\n"); err == nil {
		t.Fatal("a file without a status line is refused")
	}
}
