package member

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// managedNamespaceCredentialsEphemeral is fleet_managed_namespace_credentials: a connection
// scoped to a managed namespace, from the preview Fleet API (2026-11-01-preview
// FleetManagedNamespaces_ListCredentials for the hub, _ListMemberCredentials for a member).
type managedNamespaceCredentialsEphemeral struct{ shared.EphemeralBase }

type managedNamespaceCredentialsModel struct {
	ManagedNamespace string       `tfsdk:"managed_namespace"`
	Member           types.String `tfsdk:"member"`
	credentialsModel
}

func (e *managedNamespaceCredentialsEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	attrs := credentialsAttributes("the hub or the member, scoped to the namespace")
	attrs["managed_namespace"] = schema.StringAttribute{
		Required:    true,
		Description: "The fleet managed namespace's name (`fleet_managed_namespace.<name>.name`).",
		// fleets.json's managedNamespaceName: the member name's pattern, up to 63 characters.
		Validators: []validator.String{stringvalidator.LengthBetween(1, fleetapi.ManagedNamespaceNameMax),
			stringvalidator.RegexMatches(memberNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit")},
	}
	attrs["member"] = schema.StringAttribute{
		Optional: true,
		Description: "A member the namespace is placed on: its kubeconfig for the namespace (`listMemberCredentials`). " +
			"Unset: the hub's kubeconfig for the namespace (`listCredentials`).",
		Validators: []validator.String{stringvalidator.LengthBetween(1, 50),
			stringvalidator.RegexMatches(memberNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit")},
	}
	resp.Schema = schema.Schema{
		Description: "A Kubernetes connection scoped to a fleet managed namespace, from the preview Fleet API " +
			"(`managedNamespaces/listCredentials` and `listMemberCredentials`, 2026-11-01-preview): what an application team " +
			"uses to deploy into its namespace. Needs `fleet_api_version = \"" + fleetapi.PreviewAPIVersion + "\"` in the provider " +
			"block; under the stable version opening it fails and names that setting." + credentialsUsage,
		Attributes: attrs,
	}
}

func (e *managedNamespaceCredentialsEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	if e.Clients != nil && e.Clients.FleetAPIVersion() != fleetapi.PreviewAPIVersion {
		resp.Diagnostics.AddError("fleet_managed_namespace_credentials needs the preview Fleet API",
			fmt.Sprintf("Managed namespace credentials exist only in Fleet API %s; the provider speaks %s. Set fleet_api_version = %q in the provider block.",
				fleetapi.PreviewAPIVersion, e.Clients.FleetAPIVersion(), fleetapi.PreviewAPIVersion))
		return
	}
	openCredentials(ctx, e.Clients, req, resp, func(m *managedNamespaceCredentialsModel, fleet fleetapi.FleetID, fc *fleetapi.Client) ([]byte, bool) {
		if m.Member.IsNull() {
			kc, err := fc.ListManagedNamespaceCredentials(ctx, fleet, m.ManagedNamespace)
			if err != nil {
				resp.Diagnostics.AddError("Getting the managed namespace's credentials", fmt.Sprintf("listCredentials of managed namespace %q of %s: %v", m.ManagedNamespace, fleet, err))
				return nil, false
			}
			return kc, true
		}
		member := m.Member.ValueString()
		results, err := fc.ListManagedNamespaceMemberCredentials(ctx, fleet, m.ManagedNamespace, []string{member})
		if err != nil {
			resp.Diagnostics.AddError("Getting the managed namespace's member credentials", fmt.Sprintf("listMemberCredentials of managed namespace %q of %s: %v", m.ManagedNamespace, fleet, err))
			return nil, false
		}
		for _, r := range results {
			if r.Name != member {
				continue
			}
			kc, err := r.DecodeKubeconfig()
			if err != nil {
				resp.Diagnostics.AddError("Getting the managed namespace's member credentials", fmt.Sprintf("Member %q of managed namespace %q: %v", member, m.ManagedNamespace, err))
				return nil, false
			}
			return kc, true
		}
		resp.Diagnostics.AddError("Getting the managed namespace's member credentials", fmt.Sprintf("The Fleet API returned no credentials for member %q of managed namespace %q.", member, m.ManagedNamespace))
		return nil, false
	})
}
