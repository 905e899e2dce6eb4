package analytics

// Every number the Business Overview, the product tiles and the CSV export
// show is defined once, here: its label, what it counts in words and its
// unit. The API serves this table with each payload (Payload.Definitions)
// and the UI shows the text in the metric's info tooltip, so the words on
// the screen and the code that counts (kpi.go: Shopper's methods, tallies,
// finish) cannot drift apart; the tests in definitions_test.go check the
// invariants the words promise (each ladder step is a subset of the one
// above it, ATC equals Adds from 3D, Top Features add up to 100 %).

// Definition is one metric as the merchant reads it.
type Definition struct {
	Label      string `json:"label"`
	Definition string `json:"definition"`
	// Unit of the value as shown: "shoppers", "%", "pp", "clicks",
	// "engaged per 1,000 shoppers", "% of feature uses", "views".
	Unit string `json:"unit"`
}

// Units.
const (
	UnitShoppers     = "shoppers"
	UnitPercent      = "%"
	UnitPP           = "pp"
	UnitClicks       = "clicks"
	UnitViews        = "views"
	UnitPer1k        = "engaged per 1,000 shoppers"
	UnitFeatureShare = "% of feature uses"
)

// Keys of the definitions that are not payload keys or ladder steps.
const (
	DefTopRegions    = "topRegions"
	DefTopFeatures   = "topFeaturesAdding"
	DefBuyLinkClicks = "buy_link_clicks"
	DefAR            = "ar"
	DefClicked       = "clicked"
	DefStoreFunnel   = "storeFunnel"
	DefEngagement    = "engagement" // product tiles
	DefHotspotCTR    = "hotspotCtr"
	DefViews         = "views"
)

// The words every definition is built from, so that a step and the KPI of
// the same set read the same.
const (
	wordsShoppers   = "Distinct shoppers (one per browser) who opened one of your 3D product pages in the range."
	wordsInteracted = "Shoppers who did something with the 3D model: turned or zoomed it, opened a hotspot, changed the variant or launched AR."
	wordsEngaged    = "Interacted shoppers who kept the model in view for 10 s or more, or opened a hotspot, changed the variant or launched AR."
	wordsHighIntent = "Engaged shoppers who launched AR, changed the variant and opened a hotspot, or clicked a buy link."
	wordsAdded      = "Engaged shoppers who clicked a buy link to your store (add to cart)."
)

// Definitions is the table, keyed by payload KPI key, ladder step key or
// one of the Def… keys.
var Definitions = map[string]Definition{
	"shoppers":     {"Shoppers", wordsShoppers + " The ladder's Viewed step.", UnitShoppers},
	StepViewed:     {"Viewed", wordsShoppers + " The Shoppers figure.", UnitShoppers},
	StepInteracted: {"Interacted", wordsInteracted, UnitShoppers},
	"engaged":      {"Engaged", wordsEngaged, UnitShoppers},
	StepEngaged:    {"Engaged", wordsEngaged, UnitShoppers},
	StepHighIntent: {"High-Intent", wordsHighIntent, UnitShoppers},
	StepATC:        {"ATC", wordsAdded + " The same number as Adds from 3D.", UnitShoppers},
	"adds_from_3d": {"Adds from 3D", wordsAdded + " The ladder's ATC step.", UnitShoppers},
	"opportunities": {"Engaged, not added",
		"Engaged shoppers who did not click a buy link: Engaged minus Adds from 3D.", UnitShoppers},
	"engagement_uplift": {"Engagement uplift",
		"How much more often engaged shoppers click a buy link than shoppers who did not engage: the click rate of engaged shoppers minus that of the others, in percentage points.", UnitPP},
	"adds_per_engaged": {"Adds per engaged",
		"Adds from 3D as a share of engaged shoppers (ATC ÷ Engaged): the click rate of engaged shoppers.", UnitPercent},
	"best_variant_uplift": {"Best variant uplift",
		"The variant whose viewers click a buy link most often, compared with all shoppers of its product, in percentage points. Reliable once the variant and its product each have 100 shoppers.", UnitPP},
	"geo_opportunity_index": {"Geo opportunity",
		"Among the regions whose buy-link click rate is below your average, the one with the most engaged shoppers per 1,000 shoppers: interested, not yet buying.", UnitPer1k},
	DefTopRegions: {"Top Regions",
		"Engaged shoppers per 1,000 shoppers from each region (the five highest).", UnitPer1k},
	DefTopFeatures: {"Top Features",
		"What the shoppers counted in Adds from 3D used before their first buy-link click. Each feature a shopper used counts once; each row is that feature's share of all those uses, so the rows add up to 100 %.", UnitFeatureShare},
	DefBuyLinkClicks: {"Buy-link clicks",
		"Every click on a buy link, by any shopper: a shopper who clicks twice counts twice.", UnitClicks},
	DefAR:      {"AR", "Shoppers who launched AR.", UnitShoppers},
	DefClicked: {"Clicked", "Shoppers who clicked a buy link (in the store-attributed funnel: a link to that store).", UnitShoppers},
	DefStoreFunnel: {"Store-attributed funnel",
		"For each store, the shoppers of the products on which someone clicked a link to that store: how many interacted, launched AR and clicked a link to that store.", UnitShoppers},
	DefEngagement: {"Engagement",
		"Engaged shoppers as a share of this product's shoppers. " + wordsEngaged, UnitPercent},
	DefHotspotCTR: {"Hotspot CTR", "Shoppers who opened a hotspot, as a share of this product's shoppers.", UnitPercent},
	DefViews:      {"Views", "Counted views: one per shopper per day.", UnitViews},
}

// productTileKeys are the definitions the product page's tiles show.
var productTileKeys = []string{DefEngagement, DefHotspotCTR, DefViews}

// ProductDefinitions is the part of the table the product tiles need.
func ProductDefinitions() map[string]Definition {
	out := make(map[string]Definition, len(productTileKeys))
	for _, k := range productTileKeys {
		out[k] = Definitions[k]
	}
	return out
}

// overviewDefinitions is a copy of the table for one payload (the payload
// may be changed by its receiver; the table may not).
func overviewDefinitions() map[string]Definition {
	out := make(map[string]Definition, len(Definitions))
	for k, d := range Definitions {
		out[k] = d
	}
	return out
}
