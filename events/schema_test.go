package events_test

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/photo3d/photo3d/events"
)

var update = flag.Bool("update", false, "rewrite events/schema.json from the registered structs")

// schema.json is what analysts get; it must equal what the structs say, so
// adding or changing an event without regenerating it fails here:
// `go test ./events -run TestSchemaIsCurrent -update`.
func TestSchemaIsCurrent(t *testing.T) {
	got, err := events.Domain().Schema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatalf("%v (generate it with -update)", err)
	}
	if string(got) != string(want) {
		t.Fatal("events/schema.json is stale: run `go test ./events -run TestSchemaIsCurrent -update` and commit it")
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range events.Domain().Types() {
		d, ok := doc.Defs[name]
		if !ok {
			t.Fatalf("%s has no schema", name)
		}
		if len(d.Properties) == 0 {
			t.Fatalf("%s has no properties", name)
		}
	}
	if _, ok := doc.Defs["job.completed.v1"].Properties["jobId"]; !ok {
		t.Fatal("job.completed.v1 lost jobId")
	}
}
