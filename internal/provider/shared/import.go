package shared

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// ImportHubName imports a hub object by name: the import ID is its name,
// which becomes name and id. object words it for the error ("a
// ClusterStagedUpdateRun on the fleet hub (a DNS subdomain)"); also sets
// the attributes a refresh does not fill (Terraform's own settings, previews).
func ImportHubName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, maxLen int, object string, also map[string]any) {
	if !DNSSubdomainRe.MatchString(req.ID) || len(req.ID) > maxLen {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected the name of %s, got %q.", object, req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	setAlso(ctx, resp, also)
}

// ImportFleetChild imports a Fleet API resource of childType (`updateRuns`,
// `members`) by its ARM ID: id, fleet_id and name, and the attributes also
// sets. whose words it for the error ("an update run's").
func ImportFleetChild(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, childType, whose string, also map[string]any) {
	fleet, name, err := fleetapi.ParseChildID(req.ID, childType)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected %s ARM ID (<fleet ID>/%s/<name>): %v", whose, childType, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), fleet.ChildID(childType, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("fleet_id"), fleet.String())...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	setAlso(ctx, resp, also)
}

func setAlso(ctx context.Context, resp *resource.ImportStateResponse, also map[string]any) {
	names := make([]string, 0, len(also))
	for n := range also {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(n), also[n])...)
	}
}
