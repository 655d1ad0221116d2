package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// A plan whose previewed resources lack `facts` says once per provider process (one plan), not once
// per resource, that a saved plan of them breaks when the fleet moves; resources with facts say
// nothing, and saved_plan_warning = false (or FLEET_SAVED_PLAN_WARNING=false) silences it.
func TestSavedPlanWarningOncePerPlan(t *testing.T) {
	ctx := context.Background()
	s := rschema.Schema{Attributes: map[string]rschema.Attribute{"facts": preview.FactsAttribute("the preview")}}
	encoded, err := (&facts.Snapshot{}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	config := func(facts any) tfsdk.Config {
		typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"facts": tftypes.String}}
		return tfsdk.Config{Schema: s, Raw: tftypes.NewValue(typ, map[string]tftypes.Value{"facts": tftypes.NewValue(tftypes.String, facts)})}
	}
	// plan runs the ModifyPlan step of resources planned in one provider process: with facts or not.
	plan := func(c *session.Session, withFacts ...bool) (warnings []diag.Diagnostic) {
		for _, pinned := range withFacts {
			var d diag.Diagnostics
			var v any
			if pinned {
				v = encoded
			}
			_, facts, _ := preview.PlanView(ctx, c, config(v), &d)
			if d.HasError() || (facts != nil) != pinned {
				t.Fatalf("PlanView(facts=%v): facts %v, %v", pinned, facts, d)
			}
			warnings = append(warnings, d.Warnings()...)
		}
		return warnings
	}

	r := configure(t, map[string]any{}, nil)
	if r.diags.HasError() {
		t.Fatal(r.diags)
	}
	if w := plan(r.clients, true, true); len(w) != 0 {
		t.Fatalf("resources with facts warned: %v", w)
	}
	w := plan(r.clients, false, false, true, false)
	if len(w) != 1 {
		t.Fatalf("three resources without facts in one plan: %d warnings, want 1: %v", len(w), w)
	}
	if w[0].Summary() != preview.SavedPlanNoteSummary || !strings.Contains(w[0].Detail(), `facts = data.fleet_facts.this.content`) ||
		!strings.Contains(w[0].Detail(), "saved_plan_warning = false") {
		t.Errorf("the note does not say how to pin the preview and how to turn it off: %s: %s", w[0].Summary(), w[0].Detail())
	}
	// The process said it: another resource's plan does not say it again.
	if w := plan(r.clients, false); len(w) != 0 {
		t.Errorf("the same process warned again: %v", w)
	}
	// The next plan is another provider process: it says it again.
	if w := plan(configure(t, map[string]any{}, nil).clients, false); len(w) != 1 {
		t.Errorf("a new provider process: %d warnings, want 1", len(w))
	}

	for _, c := range []struct {
		cfg map[string]any
		env map[string]string
	}{
		{map[string]any{"saved_plan_warning": false}, nil},
		{map[string]any{}, map[string]string{"FLEET_SAVED_PLAN_WARNING": "false"}},
	} {
		r := configure(t, c.cfg, c.env)
		if r.diags.HasError() {
			t.Fatal(r.diags)
		}
		if w := plan(r.clients, false, false); len(w) != 0 {
			t.Errorf("%v %v: %d warnings, want none", c.cfg, c.env, len(w))
		}
	}
	r = configure(t, map[string]any{"saved_plan_warning": true}, map[string]string{"FLEET_SAVED_PLAN_WARNING": "false"})
	if w := plan(r.clients, false); len(w) != 1 {
		t.Errorf("the attribute wins over the environment: %d warnings, want 1", len(w))
	}
}
