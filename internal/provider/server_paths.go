package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Why the diagnostics name their paths: Terraform may show a diagnostic on a nested argument at the
// source line of an enclosing resource or block (a duplicate group among a stage's `group` blocks
// on the resource's first line), so the path in the message is what a user finds it by. One
// wrapper covers every resource and data source.

func (s fleetServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		namePaths(resp.Diagnostics)
	}
	return resp, err
}

func (s fleetServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		namePaths(resp.Diagnostics)
	}
	return resp, err
}

func (s fleetServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		namePaths(resp.Diagnostics)
	}
	return resp, err
}

// namePaths prefixes "At <path>: " to the detail of each diagnostic on a
// nested path (two steps or more) whose text does not already name it.
func namePaths(diags []*tfprotov6.Diagnostic) {
	for _, d := range diags {
		if d == nil || d.Attribute == nil || len(d.Attribute.Steps()) < 2 {
			continue
		}
		p := hclPath(d.Attribute)
		if strings.Contains(d.Detail, p) || strings.Contains(d.Summary, p) {
			continue
		}
		d.Detail = "At " + p + ": " + d.Detail
	}
}

// hclPath writes a path the way a configuration spells it: stage[0].group[1].name (the second
// group block of the first stage block).
func hclPath(p *tftypes.AttributePath) string {
	var b strings.Builder
	for _, st := range p.Steps() {
		switch s := st.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		default: // a set element: no index to show
			b.WriteString("[…]")
		}
	}
	return b.String()
}
