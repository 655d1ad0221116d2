package actionacc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// listBlock is a list block of terraform query with the given config arguments (none: no config).
func listBlock(resourceType, name string, config ...string) string {
	block := fmt.Sprintf("\nlist %q %q {\n  provider = fleet\n", resourceType, name)
	if len(config) > 0 {
		block += "  config {\n    " + strings.Join(config, "\n    ") + "\n  }\n"
	}
	return block + "}\n"
}

// adoptLists are list blocks "adopt" of each resource type, finding what is named adopt-….
func adoptLists(resourceTypes ...string) string {
	var lists string
	for _, rt := range resourceTypes {
		lists += listBlock(rt, "adopt", `name_prefix = "adopt-"`)
	}
	return lists
}

var adoptQuery = adoptLists("fleet_update_strategy") +
	listBlock("fleet_update_run", "adopt", `name_prefix = "adopt-"`, `state = "NotStarted"`) +
	listBlock("fleet_member", "prod", `group = "prod"`)

// Adopting what exists with terraform query: a strategy and a run made outside Terraform (as the
// portal or az CLI makes them) and the prod members are found by the list resources' filters;
// -generate-config-out writes their resource and import blocks; terraform plan then shows only
// imports.
func TestAccQuery_adoptExisting(t *testing.T) {
	ctx := context.Background()
	fc := acctest.FleetAPI(t)
	strategy := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{
		Stages: []fleetapi.UpdateStage{{Name: "prod", Groups: []fleetapi.UpdateGroup{{Name: "prod"}}}}}}}
	poller, err := fc.BeginCreateOrUpdateUpdateStrategy(ctx, actionsFleet, "adopt-strategy", strategy, nil)
	if _, err := shared.PollDone(ctx, poller, err); err != nil {
		t.Fatal(err)
	}
	run := fleetapi.UpdateRun{Properties: &fleetapi.UpdateRunProperties{
		UpdateStrategyID:     actionsFleet.ChildID("updateStrategies", "adopt-strategy"),
		ManagedClusterUpdate: &fleetapi.ManagedClusterUpdate{Upgrade: fleetapi.ManagedClusterUpgradeSpec{Type: "NodeImageOnly"}},
	}}
	runPoller, err := fc.BeginCreateOrUpdateUpdateRun(ctx, actionsFleet, "adopt-run", run, nil)
	if _, err := shared.PollDone(ctx, runPoller, err); err != nil {
		t.Fatal(err)
	}
	// Each list block's results in order; the blocks themselves in any order.
	w, _ := adoptQueried(t, adoptQuery,
		`list\.fleet_update_strategy\.adopt\s+id=`+actionsFleet.ChildID("updateStrategies", "adopt-strategy")+`\s+adopt-strategy`,
		`list\.fleet_update_run\.adopt\s+id=`+actionsFleet.ChildID("updateRuns", "adopt-run")+`\s+adopt-run \(NotStarted\)`,
		`list\.fleet_member\.prod\s+id=`+actionsFleet.ChildID("members", "prod-1")+`\s+prod-1`,
		`list\.fleet_member\.prod\s+id=`+actionsFleet.ChildID("members", "prod-2")+`\s+prod-2`,
	)
	importsOnly(t, w, 4)
}

// adoptQueried runs terraform query of query (adopt.tfquery.hcl) in a working folder of its own and
// checks its output has a line matching each of found, in any order; it returns the folder and the
// output.
func adoptQueried(t *testing.T, query string, found ...string) (*acctest.Workdir, string) {
	t.Helper()
	w := acctest.NewWorkdir(t, "")
	w.Write("adopt.tfquery.hcl", query)
	out := w.Must("query")
	for _, want := range found {
		acctest.Lines(t, out, want)
	}
	return w, out
}

// importsOnly checks that what -generate-config-out writes from w's query plans n imports and no
// other change.
func importsOnly(t *testing.T, w *acctest.Workdir, n int) {
	t.Helper()
	w.Must("query", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(w.Dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated.tf:\n%s", generated)
	acctest.Lines(t, w.Must("plan", "-input=false"), fmt.Sprintf(`Plan: %d to import, 0 to add, 0 to change, 0 to destroy.`, n))
}

// A principal that may not list update runs: terraform query fails with one diagnostic that names
// the permission.
func TestAccQuery_forbiddenNamesThePermission(t *testing.T) {
	f := acctest.Current(t)
	w := acctest.NewWorkdir(t, "")
	w.Write("runs.tfquery.hcl", listBlock("fleet_update_run", "all"))
	f.AddFaults(t, emulator.FaultRule{Method: "GET", Path: "/updateRuns$", Status: 403, Code: "AuthorizationFailed",
		Message: "The client does not have authorization to perform action 'Microsoft.ContainerService/fleets/updateRuns/read'."})
	out, err := w.Run("query")
	if err == nil {
		t.Fatalf("query succeeded:\n%s", out)
	}
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Fatalf("%d diagnostics, want 1:\n%s", n, out)
	}
	if !acctest.WrappedRegexp(`Error: Not allowed to list update runs`).MatchString(out) ||
		!acctest.WrappedRegexp(`it needs Microsoft.ContainerService/fleets/updateRuns/read`).MatchString(out) {
		t.Fatalf("the diagnostic does not name the permission:\n%s", out)
	}
}
