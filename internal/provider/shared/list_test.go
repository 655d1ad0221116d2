package shared

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
)

// A list block whose results pass its limit gets one warning with the total, before the results:
// Terraform (v1.16.0's plugin6 client) stops reading the stream at the limit, so a warning after
// the last result would never arrive. At or under the limit nothing is said.
func TestListPastItsLimitWarnsOnceWithTheTotal(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		found, limit, wantResults int
		warn                      bool
	}{
		{found: 800, limit: 100, wantResults: 100, warn: true},
		{found: 800, limit: 1000, wantResults: 800},
		{found: 100, limit: 100, wantResults: 100},
		{found: 0, limit: 100},
	} {
		var entries []ListEntry
		for i := range c.found {
			entries = append(entries, ListEntry{ID: fmt.Sprintf("member-%03d", i), DisplayName: fmt.Sprintf("member-%03d", i)})
		}
		lr := &listResource{suffix: "_member", clients: session.New(session.Options{}),
			list: func(context.Context, *session.Session, tfsdk.Config, *diag.Diagnostics) []ListEntry { return entries }}
		req := list.ListRequest{Limit: int64(c.limit), ResourceSchema: schema.Schema{}, ResourceIdentitySchema: identitySchema}
		var stream list.ListResultsStream
		lr.List(ctx, req, &stream)

		// Read as Terraform reads: until limit results with an identity, warnings gathered on the way.
		var results []string
		var warnings diag.Diagnostics
		for r := range stream.Results {
			if len(results) >= c.limit {
				break
			}
			if r.Diagnostics.HasError() {
				t.Fatal(r.Diagnostics)
			}
			warnings.Append(r.Diagnostics.Warnings()...)
			if r.Identity == nil {
				continue
			}
			results = append(results, r.DisplayName)
		}
		if len(results) != c.wantResults || (len(results) > 0 && results[0] != "member-000") {
			t.Errorf("%d found, limit %d: %d results (first %v), want %d", c.found, c.limit, len(results), results[:min(1, len(results))], c.wantResults)
		}
		if !c.warn {
			if len(warnings) != 0 {
				t.Errorf("%d found, limit %d: warned %v", c.found, c.limit, warnings)
			}
			continue
		}
		if len(warnings) != 1 {
			t.Fatalf("%d found, limit %d: %d warnings, want 1: %v", c.found, c.limit, len(warnings), warnings)
		}
		if w := warnings[0]; w.Summary() != limitWarningSummary || !strings.Contains(w.Detail(), "found 800 results") ||
			!strings.Contains(w.Detail(), "first 100") || !strings.Contains(w.Detail(), "`limit` to at least 800") {
			t.Errorf("the warning does not give the total, the limit and the fix: %s", w.Detail())
		}
	}
}
