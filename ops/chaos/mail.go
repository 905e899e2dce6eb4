package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/mail/smtptest"
	"github.com/photo3d/photo3d/ops/internal/harness"
)

// mailScenario takes the SMTP relay down while new merchants sign up, with
// workers dying and Postgres restarting around it. Account mail goes through
// the transactional outbox (a mail_outbox row and a River `mail` job in the
// sign-up's transaction), so nothing may be lost: once the relay is back,
// every merchant gets their verification mail, opens its link and signs in.
// Nothing may be doubled: each mail arrives under one Message-ID (a resend
// after a kill between the relay's 250 and the outbox delete carries the
// same id, which mail clients show once; the report counts such resends).
type mailScenario struct {
	emails []string
	down   time.Duration // how long the relay was down
}

// mailSignups is how many merchants sign up while the relay is down.
const mailSignups = 3

func (*mailScenario) name() string { return "mail" }

func (*mailScenario) setup(context.Context, *chaosRun) error { return nil }

// during takes the relay down a fifth into the window, signs merchants up
// while it is down (retrying a sign-up refused by the Postgres outage, as a
// person would), keeps it down a while longer, then brings it back.
func (s *mailScenario) during(ctx context.Context, c *chaosRun) error {
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(c.o.chaos / 5):
	}
	relay := c.st.Mail
	relay.Down()
	t0 := time.Now()
	defer func() {
		s.down = time.Since(t0)
		if err := relay.Up(); err != nil {
			fmt.Fprintln(c.log, "mail scenario:", err)
		}
	}()
	m := &harness.Merchant{Base: c.st.APIBase, HTTP: &http.Client{Timeout: 10 * time.Second}}
	for i := range mailSignups {
		email := fmt.Sprintf("chaos.mail.%d.%d@example.com", i, time.Now().UnixNano())
		if err := retryRefused(ctx, func() error {
			return m.Call(ctx, "POST", "/api/auth/signup", map[string]any{"email": email, "password": "chaos mail 1234", "name": "Mail Outage"}, "", nil)
		}); err != nil {
			return fmt.Errorf("sign up during the SMTP outage: %w", err)
		}
		s.emails = append(s.emails, email)
	}
	// Long enough for the workers to try and fail (River retries a refused
	// send after 1 s, then 16 s), short enough to end inside the window.
	select {
	case <-ctx.Done():
	case <-time.After(min(3*time.Second, c.o.chaos/5)):
	}
	return nil
}

// retryRefused retries f while the api refuses for want of its database
// (5xx, or no answer), for as long as ctx allows.
func retryRefused(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		if !refusedForNow(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// refusedForNow reports whether a harness call failed in a way a person
// would retry: a 5xx answer or no answer at all.
func refusedForNow(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "status 5") || !strings.Contains(msg, "status ")
}

var messageID = regexp.MustCompile(`(?m)^Message-ID: <([^>]+)>\r?$`)

// check waits for each merchant's verification mail, opens the link and
// signs in; then it checks that every mail job ended sent and that no mail
// arrived twice under different ids.
func (s *mailScenario) check(ctx context.Context, c *chaosRun) (string, error) {
	if len(s.emails) < mailSignups {
		return "", fmt.Errorf("only %d of %d merchants signed up during the SMTP outage", len(s.emails), mailSignups)
	}
	relay := c.st.Mail
	resends := 0
	for _, email := range s.emails {
		m := &harness.Merchant{Base: c.st.APIBase, HTTP: &http.Client{Timeout: 10 * time.Second}}
		if err := c.st.Verifier()(ctx, m, email); err != nil {
			return "", fmt.Errorf("lost: %w", err)
		}
		if err := m.Call(ctx, "POST", "/api/auth/login", map[string]any{"email": email, "password": "chaos mail 1234"}, "", nil); err != nil {
			return "", fmt.Errorf("%s cannot sign in after opening the mailed link: %w", email, err)
		}
		ids, n := distinctIDs(relay.To(email))
		if len(ids) != 1 {
			return "", fmt.Errorf("doubled: %s got %d different mails (%v) for one sign-up", email, len(ids), ids)
		}
		resends += n - len(ids)
	}
	// Every mail job of the run ends sent: none failed for good, none is
	// left behind. A job whose worker was killed mid-send is still
	// "running" until River's rescuer takes it back (after the mail job's
	// time limit), so wait for that within ctx.
	jobs, stuck, err := mailJobs(ctx, c)
	for err == nil && len(stuck) > 0 && !slices.ContainsFunc(stuck, isFinal) {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(time.Second):
			jobs, stuck, err = mailJobs(ctx, c)
		}
	}
	if len(stuck) > 0 {
		return "", fmt.Errorf("mail jobs not sent: %s (of %d)", strings.Join(stuck, ", "), jobs)
	}
	if err != nil {
		return "", err
	}
	var retried int
	if err := c.st.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'mail' AND attempt > 1`).Scan(&retried); err != nil {
		return "", err
	}
	if retried == 0 {
		return "", errors.New("no mail job was retried: the outage did not delay any mail, so it tested nothing")
	}
	all, total := distinctIDs(relay.Messages())
	return fmt.Sprintf("relay down %s; %d merchants signed up meanwhile, each verified from one mail; %d mail jobs, all sent, %d of them retried; %d mails at the relay under %d Message-IDs (%d resends after a kill)",
		s.down.Round(100*time.Millisecond), len(s.emails), jobs, retried, total, len(all), resends), nil
}

// mailJobs counts the run's mail jobs and lists those not sent, as
// "N state".
func mailJobs(ctx context.Context, c *chaosRun) (int, []string, error) {
	rows, err := c.st.Pool.Query(ctx, `SELECT state::text, count(*) FROM river_job WHERE kind = 'mail' GROUP BY 1`)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var jobs int
	var stuck []string
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return 0, nil, err
		}
		jobs += n
		if state != "completed" {
			stuck = append(stuck, fmt.Sprintf("%d %s", n, state))
		}
	}
	return jobs, stuck, rows.Err()
}

// isFinal reports whether a "N state" line names a state no job leaves
// (a mail given up for good): waiting longer changes nothing.
func isFinal(line string) bool {
	return strings.HasSuffix(line, " cancelled") || strings.HasSuffix(line, " discarded")
}

// distinctIDs is the set of Message-IDs among msgs (a message without one
// counts under its body) and how many messages there were.
func distinctIDs(msgs []smtptest.Message) (map[string]int, int) {
	ids := map[string]int{}
	for _, m := range msgs {
		key := m.Data
		if id := messageID.FindStringSubmatch(m.Data); id != nil {
			key = id[1]
		}
		ids[key]++
	}
	return ids, len(msgs)
}
