package fleetapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseIDs: ARM IDs typed by users (fleet_id, update_strategy_id, terraform import). No panic;
// an accepted ID has every part and rebuilds to an ID that parses to the same fleet and name.
func FuzzParseIDs(f *testing.F) {
	const fleet = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f1"
	for _, s := range []string{fleet, fleet + "/updateRuns/run-1", fleet + "/updateStrategies/s", fleet + "/members/m", fleet + "/gates/g",
		"/subscriptions//resourceGroups/rg/providers/Microsoft.ContainerService/fleets/F_1", "", "/", "fleets/f", fleet + "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := ParseFleetID(s); err == nil {
			if id.Validate() != nil {
				t.Fatalf("ParseFleetID(%q) accepted an invalid %+v", s, id)
			}
			if again, err := ParseFleetID(id.String()); err != nil || again != id {
				t.Fatalf("ParseFleetID(%q) = %+v, whose ID %q parses to %+v, %v", s, id, id.String(), again, err)
			}
		}
		for _, child := range []string{"members", "updateRuns", "updateStrategies", "autoUpgradeProfiles", "gates"} {
			if id, name, err := ParseChildID(s, child); err == nil && (name == "" || id.Validate() != nil) {
				t.Fatalf("ParseChildID(%q, %s) accepted %+v %q", s, child, id, name)
			}
		}
	})
}

// FuzzResponses: Fleet API response bodies, as the client decodes them, and error responses. No
// panic; a body that decodes re-encodes. Seeds: the examples of 2026-06-01 and of the preview
// (2026-11-01-preview with its 2026-06-02-preview substitutes).
func FuzzResponses(f *testing.F) {
	var files []string
	for _, dir := range []string{"stable/2026-06-01", "preview/2026-11-01-preview", "preview/2026-06-02-preview"} {
		m, _ := filepath.Glob(filepath.Join("testdata", "azure-fleet-api", filepath.FromSlash(dir), "examples", "*.json"))
		files = append(files, m...)
	}
	if len(files) < 40 {
		f.Fatalf("found %d example files to seed from", len(files))
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var ex struct {
			Responses map[string]struct {
				Body json.RawMessage `json:"body"`
			} `json:"responses"`
		}
		if json.Unmarshal(b, &ex) == nil {
			for _, r := range ex.Responses {
				if len(r.Body) > 0 {
					f.Add([]byte(r.Body))
				}
			}
		}
	}
	f.Add([]byte(`{"error":{"code":"Conflict","message":"x","details":[{"code":"y"}]}}`))
	f.Add([]byte(`{"code":"BadRequest"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []any{&UpdateRun{}, &FleetUpdateStrategy{}, &AutoUpgradeProfile{}, &FleetMember{}, &Gate{}, &ErrorResponse{},
			&FleetMemberCredentialResults{}, &FleetCredentialResults{}} {
			if json.Unmarshal(b, v) == nil {
				if _, err := json.Marshal(v); err != nil {
					t.Fatalf("%T decoded from %q does not encode: %v", v, b, err)
				}
			}
		}
		resp := &http.Response{StatusCode: 409, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(b))}
		err := newError(resp)
		if err == nil || strings.TrimSpace(err.Error()) == "" {
			t.Fatalf("newError(%q) = %v: want a message", b, err)
		}
	})
}
