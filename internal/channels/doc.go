// Package channels is the home of the sales channels a published product
// reaches besides its own page (issue 32): oEmbed consumers (subpackage
// oembed), iOS Quick Look (usdz) and the per-channel asset packages and
// their budgets (this package).
package channels
