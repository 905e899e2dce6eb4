package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/photo3d/photo3d/internal/account"
)

// inviteCmd manages invite codes for SIGNUP_MODE=invite:
//
//	worker invite create EMAIL [flags]
//
// It prints the code once (only its hash is stored); the invitee signs up
// with that e-mail address and the code. Flags are the worker's usual ones
// (-database-url …).
func inviteCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 || args[0] != "create" || !strings.Contains(args[1], "@") {
		return errors.New("usage: worker invite create EMAIL")
	}
	email := args[1]
	d, err := open(ctx, "worker invite", args[2:], getenv, stdout, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()
	code, err := account.CreateInvite(ctx, d.pool, email, account.InviteLifetime, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "invite code for %s (valid %d days, single use):\n%s\nsignup link: %s/signup?invite=%s\n",
		account.NormalizeEmail(email), int(account.InviteLifetime.Hours()/24), code, d.cfg.PublicBaseURL, url.QueryEscape(code))
	return nil
}
