package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
)

// previewed is a resource with a plan-time preview (a preview.Spec): the inputs it reads of the
// fleet.
type previewed interface {
	PreviewInputs() []facts.Input
}

// PreviewInputs are, by resource type, the inputs each previewed resource's preview reads of the
// fleet: what the generated saved-plan test moves between a plan and its apply.
func PreviewInputs() map[string][]facts.Input {
	ctx := context.Background()
	p := &FleetProvider{}
	out := map[string][]facts.Input{}
	for _, f := range p.Resources(ctx) {
		r := f()
		inner := r
		if w, ok := r.(interface{ Unwrap() resource.Resource }); ok {
			inner = w.Unwrap()
		}
		pr, ok := inner.(previewed)
		if !ok {
			continue
		}
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "fleet"}, &md)
		out[md.TypeName] = pr.PreviewInputs()
	}
	return out
}
