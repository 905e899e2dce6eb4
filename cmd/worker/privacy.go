package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gocloud.dev/blob"

	"github.com/photo3d/photo3d/internal/mail"
	"github.com/photo3d/photo3d/internal/privacy"
	"github.com/photo3d/photo3d/internal/subscription/stripebilling"
)

// migratePIICmd strips personal fields from user events stored before
// issue 31 (copying them to user_pii first where it has no row):
//
//	worker migrate-pii
//
// Safe to run again: a second run finds nothing to change.
func migratePIICmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	d, err := open(ctx, "worker migrate-pii", args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()
	res, err := privacy.MigrateEvents(ctx, d.pool)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrate-pii: %d events stripped of personal data, %d accounts' data copied to user_pii\n", res.Stripped, res.Copied)
	return nil
}

// eraseShopperCmd deletes a shopper's leads at every merchant:
//
//	worker erase-shopper EMAIL
//
// The address is never printed back (the support team's terminal history
// is a log too).
func eraseShopperCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 1 || !strings.Contains(args[0], "@") {
		return errors.New("usage: worker erase-shopper EMAIL")
	}
	d, err := open(ctx, "worker erase-shopper", args[1:], getenv, stdout, stderr)
	if err != nil {
		return err
	}
	defer d.pool.Close()
	res, err := privacy.EraseShopper(ctx, d.pool, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "erase-shopper: %d leads deleted at %d merchants\n", res.Leads, res.Merchants)
	return nil
}

// eraseWorker builds the account erasure job's worker from the config: the
// payment provider (when BILLING_PROVIDER=stripe) and account mail (SMTP,
// else the log and, in DEV_MODE, the dev mail directory the api also uses).
func (d *deps) eraseWorker(stripe *stripebilling.Provider, bucket *blob.Bucket) *privacy.EraseWorker {
	w := &privacy.EraseWorker{DB: d.pool, Store: d.store, Bucket: bucket, Mailer: d.mailer(), Logger: d.log, BaseURL: d.cfg.PublicBaseURL,
		AttemptTimeout: d.cfg.PrivacyJobTimeout}
	if stripe != nil { // a nil *Provider in the interface would not be nil
		w.Billing = stripe
	}
	return w
}

// exportWorker builds "Download my data" ZIPs.
func (d *deps) exportWorker(bucket *blob.Bucket) *privacy.ExportWorker {
	return &privacy.ExportWorker{DB: d.pool, Store: d.store, Bucket: bucket, Logger: d.log, BaseURL: d.cfg.PublicBaseURL,
		AttemptTimeout: d.cfg.PrivacyJobTimeout}
}

// mailer is how the erasure job mails its goodbye itself (see
// privacy.EraseWorker.sendErasedMail): the same sender as the mail job's.
func (d *deps) mailer() mail.Sender { return mailSender(d.cfg, d.log) }
