package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// ---- meter ------------------------------------------------------------

// viewToken is the share page's signed view token; /t refuses a beacon
// without it (internal/publish/pagetoken.go).
var viewToken = regexp.MustCompile(`<meta name="p3d-view-token" content="([^"]+)">`)

// meter is run's shopper: every loop opens the share page as a new viewer
// from its own address (X-Forwarded-For, believed because the api runs with
// TRUSTED_PROXIES=127.0.0.1/32) and, when the page offered the model, sends
// the viewer script's `view` beacon, the counted view. It prints page and
// beacon figures and the number of view beacons the api accepted (204),
// which `verify` then checks against the database.
func meter(args []string) error {
	fs := flag.NewFlagSet("meter", flag.ContinueOnError)
	target := fs.String("url", "", "share page URL (loopback only)")
	conc := fs.Int("c", 32, "concurrent connections")
	dur := fs.Duration("d", 15*time.Second, "duration (at most 2m)")
	out := fs.String("out", "", "file to write the accepted view beacon count to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := loopbackOnly(*target)
	if err != nil {
		return err
	}
	if *dur <= 0 || *dur > 2*time.Minute {
		return errors.New("-d must be between 0 and 2m")
	}
	accepted, notices, err := meterRun(u, *conc, *dur)
	if err != nil {
		return err
	}
	if *out != "" {
		return os.WriteFile(*out, fmt.Appendf(nil, "%d %d\n", accepted, notices), 0o644)
	}
	return nil
}

// meterRun is meter's load: conc shoppers for dur. It returns the view
// beacons the api accepted and the notice pages seen.
func meterRun(u *url.URL, conc int, dur time.Duration) (int, int, error) {
	slug := path.Base(u.Path)
	beaconURL := *u
	beaconURL.Path, beaconURL.RawQuery = "/t", ""
	tr := &http.Transport{MaxIdleConns: conc, MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var (
		seq                               atomic.Int64
		mu                                sync.Mutex
		pageLat                           []time.Duration
		models, notices, otherPages, fail int
		accepted, refused                 int
		beaconStatus                      = map[int]int{}
	)
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var lModels, lNotices, lOther, lFail, lAcc, lRef int
			lStatus := map[int]int{}
			for ctx.Err() == nil {
				n := seq.Add(1)
				// 10.0.0.0/8 minus .0/.255 hosts: 16M distinct shoppers' addresses.
				addr := fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255|1)
				ua := fmt.Sprintf("Mozilla/5.0 (Linux; Android 14) Chrome/140.0 Mobile meter/%d", n)
				req, _ := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
				req.Header.Set("User-Agent", ua)
				req.Header.Set("X-Forwarded-For", addr)
				// No Accept-Encoding of our own: the transport asks for gzip and
				// decodes it, so the body below is the page's HTML.
				t0 := time.Now()
				res, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						lFail++
					}
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if ctx.Err() != nil {
					break
				}
				lat = append(lat, time.Since(t0))
				model := res.StatusCode == 200 && bytes.Contains(body, []byte("<model-viewer"))
				switch {
				case model:
					lModels++
				case res.StatusCode == 200:
					lNotices++ // the "views ran out" notice
				default:
					lOther++
				}
				if !model {
					continue
				}
				var id [16]byte
				_, _ = rand.Read(id[:])
				// The page's view token, as the viewer script sends it.
				token := ""
				if m := viewToken.FindSubmatch(body); m != nil {
					token = string(m[1])
				}
				batch := fmt.Sprintf(`{"v":1,"slug":%q,"viewer":%q,"token":%q,"events":[{"t":"view","at":%d}]}`,
					slug, hex.EncodeToString(id[:]), token, time.Now().UnixMilli())
				breq, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), "POST", beaconURL.String(), strings.NewReader(batch))
				breq.Header.Set("Content-Type", "text/plain;charset=UTF-8")
				breq.Header.Set("Origin", u.Scheme+"://"+u.Host) // sendBeacon from our page
				breq.Header.Set("User-Agent", ua)
				breq.Header.Set("X-Forwarded-For", addr)
				bres, err := hc.Do(breq)
				if err != nil {
					lFail++
					continue
				}
				_, _ = io.Copy(io.Discard, bres.Body)
				bres.Body.Close()
				lStatus[bres.StatusCode]++
				if bres.StatusCode == http.StatusNoContent {
					lAcc++
				} else {
					lRef++
				}
			}
			mu.Lock()
			pageLat = append(pageLat, lat...)
			models, notices, otherPages, fail = models+lModels, notices+lNotices, otherPages+lOther, fail+lFail
			accepted, refused = accepted+lAcc, refused+lRef
			for k, v := range lStatus {
				beaconStatus[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(pageLat)
	n := len(pageLat)
	p99 := time.Duration(0)
	if n > 0 {
		p99 = pageLat[min(n-1, n*99/100)]
	}
	fmt.Printf("pages       %d (%.0f req/s), p99 %s: %d model pages, %d notices, %d other statuses\n",
		n, float64(n)/elapsed.Seconds(), p99, models, notices, otherPages)
	fmt.Printf("beacons     %d view beacons accepted (204), %d refused %v, %d transport errors\n", accepted, refused, beaconStatus, fail)
	return accepted, notices, nil
}

// ---- verify -----------------------------------------------------------

// verify checks, after the api has stopped (its meter returned its lease
// and its event buffer was written), that metering was exact: every
// accepted view beacon is a stored view, the counted ones are exactly the
// views taken from the ledger, and none went over the balance: with more
// viewers than views, counted == the starting balance and it ends at 0.
func verify(args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	dbURL := fs.String("db", os.Getenv("DATABASE_URL"), "database URL")
	slug := fs.String("slug", "", "the publication's slug")
	beacons := fs.Int64("beacons", -1, "view beacons the api accepted (meter's count)")
	balance := fs.Int64("balance", -1, "the owner's public-view balance before the run")
	notices := fs.Int64("notices", 0, "notice pages meter saw (the balance ran out)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *slug == "" || *beacons < 0 || *balance < 0 {
		return errors.New("-slug, -beacons and -balance are required")
	}
	return verifyMetering(context.Background(), *dbURL, *slug, *beacons, *balance, *notices)
}

// verifyMetering is verify's check, for a publication's slug.
func verifyMetering(ctx context.Context, dbURL, slug string, beacons, balance, notices int64) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var pubID, owner string
	if err := conn.QueryRow(ctx, `SELECT id, user_id FROM publications WHERE slug = $1`, slug).Scan(&pubID, &owner); err != nil {
		return fmt.Errorf("publication %s: %w", slug, err)
	}
	var recorded, counted int64
	if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE counted) FROM shopper_events
		WHERE publication_id = $1 AND kind = 'view'`, pubID).Scan(&recorded, &counted); err != nil {
		return err
	}
	var purchased, used, leased int64
	if err := conn.QueryRow(ctx, `SELECT public_views_purchased, public_views_used, public_views_leased
		FROM subscriptions WHERE user_id = $1`, owner).Scan(&purchased, &used, &leased); err != nil {
		return err
	}
	fmt.Printf("ledger      balance before %d; views used %d, still leased %d\n", balance, used, leased)
	fmt.Printf("stored      %d view events for %d accepted beacons; %d counted\n", recorded, beacons, counted)
	var bad []string
	if recorded != beacons {
		bad = append(bad, fmt.Sprintf("%d accepted view beacons but %d stored views", beacons, recorded))
	}
	if counted != used {
		bad = append(bad, fmt.Sprintf("%d counted views stored but %d taken from the ledger", counted, used))
	}
	if used > balance {
		bad = append(bad, fmt.Sprintf("%d views taken from a balance of %d", used, balance))
	}
	if leased != 0 {
		bad = append(bad, fmt.Sprintf("%d views still leased after the api stopped", leased))
	}
	if notices > 0 && used != balance {
		bad = append(bad, fmt.Sprintf("the notice was shown while %d of %d views were unused", balance-used, balance))
	}
	if len(bad) > 0 {
		return fmt.Errorf("metering NOT exact: %s", strings.Join(bad, "; "))
	}
	exhausted := ""
	if used == balance {
		exhausted = " (balance used up exactly; later shoppers got the notice)"
	}
	fmt.Printf("metering    exact: %d counted views = %d taken from the ledger ≤ balance %d%s\n", counted, used, balance, exhausted)
	return nil
}
