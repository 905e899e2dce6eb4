// Command healthcheck is the container HEALTHCHECK probe: the runtime images
// are distroless (no shell, curl or wget), so compose needs a tiny static
// binary that GETs a URL and exits 0 on a 2xx answer, 1 otherwise.
//
//	healthcheck http://127.0.0.1:8080/readyz
package main

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: healthcheck URL")
		os.Exit(2)
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		fmt.Fprintln(os.Stderr, "healthcheck:", resp.Status)
		os.Exit(1)
	}
}
