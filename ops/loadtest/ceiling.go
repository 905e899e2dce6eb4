package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/photo3d/photo3d/internal/onewrite"
)

// ceiling serves one saved response (the api's own share page: its headers and
// body, as `curl -D` saved them) from a bare Go net/http server, with the api's
// listener (internal/onewrite, one write per page) and its server timeouts, and
// nothing else: no router, middleware, metering or template. What it reaches
// against nginx is the most any Go net/http handler can reach on this machine,
// so ops/sharebench.sh CEILING=1 prints it beside the api.
//
//	loadtest ceiling -addr 127.0.0.1:9000 -headers page.headers -body page.html
func ceiling(args []string) error {
	fs := flag.NewFlagSet("ceiling", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	headersFile := fs.String("headers", "", "the response's status line and headers, as curl -D saves them")
	bodyFile := fs.String("body", "", "the response body")
	deadlines := fs.Bool("deadlines", true, "the api's ReadTimeout and WriteTimeout (a deadline set per request); false: ReadHeaderTimeout and IdleTimeout only")
	oneWrite := fs.Bool("onewrite", true, "the api's listener (internal/onewrite); false: net/http's own writes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address", host)
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		return err
	}
	rawHeaders, err := os.ReadFile(*headersFile)
	if err != nil {
		return err
	}
	header, err := savedHeader(string(rawHeaders))
	if err != nil {
		return err
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range header {
			h[k] = v
		}
		if *oneWrite {
			onewrite.Write(w, r, http.StatusOK, body)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// The api's server settings (cmd/api/main.go), so the per-request deadlines cost the same.
	srv := &http.Server{Handler: handler, ConnContext: onewrite.ConnContext, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	if *deadlines {
		srv.ReadTimeout, srv.WriteTimeout = 2*time.Minute, 5*time.Minute
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	fmt.Println("http://" + ln.Addr().String())
	if err := srv.Serve(onewrite.Listener(ln)); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// savedHeader reads curl -D output: a status line, then "Name: value" lines.
// Date and Content-Length are left to net/http, which writes them itself.
func savedHeader(raw string) (http.Header, error) {
	lines := strings.Split(strings.ReplaceAll(raw, "\r\n", "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "HTTP/") {
		return nil, errors.New("headers file does not start with a status line")
	}
	h := http.Header{}
	for _, line := range lines[1:] {
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("header line %q has no colon", line)
		}
		key := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
		if key == "Date" || key == "Content-Length" {
			continue
		}
		h.Add(key, strings.TrimSpace(value))
	}
	return h, nil
}
