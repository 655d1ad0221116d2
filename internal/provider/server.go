package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ProtocolServer serves the provider over protocol 6, naming each nested
// attribute's path in the text of the diagnostics that point at it.
//
// Why: Terraform shows a diagnostic on a nested attribute at the source line
// of the enclosing resource or list (a duplicate group in `stages` is shown
// on the resource's first line), so the path in the message is all a user
// has to find it. One wrapper covers every resource and data source.
func ProtocolServer(p provider.Provider) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		srv, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		return pathNamingServer{srv}, nil
	}
}

type pathNamingServer struct{ tfprotov6.ProviderServer }

func (s pathNamingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		namePaths(resp.Diagnostics)
	}
	return resp, err
}

func (s pathNamingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		namePaths(resp.Diagnostics)
	}
	return resp, err
}

func (s pathNamingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
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

// hclPath writes a path the way a configuration spells it: stages[0].groups[1].name.
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

// ProtocolServerFactory is ProtocolServer for tf6server.Serve, which takes a
// factory without an error.
func ProtocolServerFactory(p provider.Provider) func() tfprotov6.ProviderServer {
	srv := providerserver.NewProtocol6(p)
	return func() tfprotov6.ProviderServer { return pathNamingServer{srv()} }
}
