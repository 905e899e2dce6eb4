package events

import "sync"

// domain is built once on first use; afterwards it is only read.
var domain = sync.OnceValue(func() *Registry {
	var all []Event
	all = append(all, userEvents()...)
	all = append(all, subscriptionEvents()...)
	all = append(all, billingEvents()...)
	all = append(all, uploadEvents()...)
	all = append(all, jobEvents()...)
	all = append(all, publicationEvents()...)
	all = append(all, catalogEvents()...)
	all = append(all, productEvents()...)
	all = append(all, productConfigEvents()...)
	all = append(all, galleryEvents()...)
	all = append(all, apiKeyEvents()...)
	all = append(all, webhookEvents()...)
	all = append(all, experimentEvents()...)
	all = append(all, teamEvents()...)
	return NewRegistry(all...)
})

// Domain returns the registry of every Photo3D event type. Adding an aggregate
// means adding its list here; a duplicate type string panics at start-up.
func Domain() *Registry { return domain() }
