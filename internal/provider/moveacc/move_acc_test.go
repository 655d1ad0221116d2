package moveacc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The fleet of testdata/fleet.yaml.
const fleetID = "/subscriptions/00000000-0000-0000-0000-000000000025/resourceGroups/rg-moves/providers/Microsoft.ContainerService/fleets/moves"

// azurerm's provider, next to ours until the move is applied (Terraform decodes the old state with
// azurerm's schema); main.tf requires it (Workdir.OverrideProvider).
const azurermProvider = `
provider "azurerm" {
  features {}
}

locals {
  fleet_id = "` + fleetID + `"
}
`

// What a team wrote with azurerm: a strategy, a run of it, a member and an auto-upgrade profile.
const azurermConfig = `
resource "azurerm_kubernetes_fleet_update_strategy" "rings" {
  name                        = "rings"
  kubernetes_fleet_manager_id = local.fleet_id
  stage {
    name = "canary"
    group {
      name = "canary"
    }
    after_stage_wait_in_seconds = 60
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
}

resource "azurerm_kubernetes_fleet_update_run" "k8s" {
  name                        = "k8s-1-33-1"
  kubernetes_fleet_manager_id = local.fleet_id
  fleet_update_strategy_id    = azurerm_kubernetes_fleet_update_strategy.rings.id
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
    node_image_selection {
      type = "Latest"
    }
  }
  timeouts {
    create = "30m"
  }
}

resource "azurerm_kubernetes_fleet_member" "spare" {
  name                  = "spare-1"
  kubernetes_fleet_id   = local.fleet_id
  kubernetes_cluster_id = "/subscriptions/00000000-0000-0000-0000-000000000025/resourceGroups/rg-moves/providers/Microsoft.ContainerService/managedClusters/spare-1"
  group                 = "canary"
  timeouts {}
}

resource "azurerm_kubernetes_fleet_auto_upgrade_profile" "stable" {
  name                        = "stable"
  kubernetes_fleet_manager_id = local.fleet_id
  channel                     = "Stable"
  update_strategy_id          = azurerm_kubernetes_fleet_update_strategy.rings.id
}
`

// movedFromAzurerm is the moved block of a fleet_<address> from azurerm_kubernetes_fleet_<address>.
func movedFromAzurerm(address string) string {
	return fmt.Sprintf("\nmoved {\n  from = azurerm_kubernetes_fleet_%[1]s\n  to   = fleet_%[1]s\n}\n", address)
}

// The same objects in this provider's resources, each with the moved block the moving-from-azurerm
// guide shows; the run's and the member's timeouts blocks are kept as azurerm users wrote them, and
// the member sets no labels (those set outside Terraform stay).
var fleetConfig = fleetConfigWithGroup("canary")

func fleetConfigWithGroup(memberGroup string) string {
	return `
resource "fleet_update_strategy" "rings" {
  name     = "rings"
  fleet_id = local.fleet_id
  stage {
    name = "canary"
    group {
      name = "canary"
    }
    after_stage_wait_in_seconds = 60
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
}
` + movedFromAzurerm("update_strategy.rings") + `
resource "fleet_update_run" "k8s" {
  name               = "k8s-1-33-1"
  fleet_id           = local.fleet_id
  update_strategy_id = fleet_update_strategy.rings.id
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
    node_image_selection {
      type = "Latest"
    }
  }
  state = "NotStarted"
  timeouts {
    create = "30m"
  }
}
` + movedFromAzurerm("update_run.k8s") + `
resource "fleet_member" "spare" {
  name                = "spare-1"
  fleet_id            = local.fleet_id
  cluster_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000025/resourceGroups/rg-moves/providers/Microsoft.ContainerService/managedClusters/spare-1"
  group               = "` + memberGroup + `"
  timeouts {}
}
` + movedFromAzurerm("member.spare") + `
resource "fleet_auto_upgrade_profile" "stable" {
  name               = "stable"
  fleet_id           = local.fleet_id
  channel            = "Stable"
  update_strategy_id = fleet_update_strategy.rings.id
}
` + movedFromAzurerm("auto_upgrade_profile.stable")
}

// The moved-from-azurerm path as users hit it, through the real CLI: apply with azurerm (the
// stand-in) writes azurerm-shaped state over real Fleet API objects, and the member gets labels
// outside Terraform (azurerm never manages them); the configuration is switched to fleet_*
// resources with moved blocks; plan shows the four moves and no other change (the member's labels
// and its `timeouts {}` included); apply moves them without a single write to the Fleet API; the
// next plan is empty; a group change keeps the outside labels; destroy goes through this provider.
func TestAccMoveFromAzurerm(t *testing.T) {
	w := acctest.NewWorkdir(t, "")
	w.OverrideProvider(standinAddress, standinBinary)
	w.Write("main.tf", azurermConfig)
	w.Write("azurerm.tf", azurermProvider)
	w.Must("apply", "-auto-approve", "-input=false")

	// azurerm's shape: blocks are lists, unset optionals are "" and 0.
	byAddr := w.State()
	run := byAddr["azurerm_kubernetes_fleet_update_run.k8s"]
	if v := acctest.Dig(run, "managed_cluster_update", 0, "upgrade", 0, "kubernetes_version"); v != "1.33.1" {
		t.Fatalf("azurerm state of the run: managed_cluster_update[0].upgrade[0].kubernetes_version = %v\n%v", v, run)
	}
	if v := acctest.Dig(byAddr["azurerm_kubernetes_fleet_update_strategy.rings"], "stage", 1, "after_stage_wait_in_seconds"); v != float64(0) {
		t.Fatalf("azurerm state of the strategy: stage[1].after_stage_wait_in_seconds = %v, want 0", v)
	}
	if len(byAddr) != 4 {
		t.Fatalf("%d resources in state, want 4: %v", len(byAddr), byAddr)
	}

	outside := labelMember(t, "spare-1", map[string]string{"team": "payments", "cost-center": "42"})

	w.Write("main.tf", fleetConfig)
	out := w.Must("plan", "-input=false")
	acctest.Lines(t, out,
		`# azurerm_kubernetes_fleet_auto_upgrade_profile.stable has moved to fleet_auto_upgrade_profile.stable`,
		`# azurerm_kubernetes_fleet_member.spare has moved to fleet_member.spare`,
		`# azurerm_kubernetes_fleet_update_run.k8s has moved to fleet_update_run.k8s`,
		`# azurerm_kubernetes_fleet_update_strategy.rings has moved to fleet_update_strategy.rings`,
		`Plan: 0 to add, 0 to change, 0 to destroy.`)
	if strings.Contains(out, "will be updated") || strings.Contains(out, "must be replaced") {
		t.Fatalf("the move plans more than the move:\n%s", out)
	}

	writes := fleetWrites(t)
	out = w.Must("apply", "-auto-approve", "-input=false")
	acctest.Lines(t, out, `Apply complete! Resources: 0 added, 0 changed, 0 destroyed.`)
	if n := fleetWrites(t); n != writes {
		t.Fatalf("the move sent %d writes to the Fleet API", n-writes)
	}
	out = w.Must("plan", "-input=false", "-detailed-exitcode")
	acctest.Lines(t, out, `No changes. Your infrastructure matches the configuration.`)
	out = w.Must("state", "list")
	for _, a := range []string{"fleet_update_strategy.rings", "fleet_update_run.k8s", "fleet_member.spare", "fleet_auto_upgrade_profile.stable"} {
		acctest.Lines(t, out, `^`+strings.ReplaceAll(a, ".", `\.`)+`$`)
	}
	if got := fmt.Sprint(w.StateValues("fleet_member.spare")["labels"]); got != fmt.Sprint(outside) {
		t.Fatalf("fleet_member.spare labels in state %s, want the ones set outside Terraform %s", got, fmt.Sprint(outside))
	}

	// Unset labels are written back as read when the member changes, not removed.
	w.Write("main.tf", fleetConfigWithGroup("prod"))
	out = w.Must("plan", "-input=false")
	acctest.Lines(t, out, `~ group\s+= "canary" -> "prod"`, `Plan: 0 to add, 1 to change, 0 to destroy.`)
	if strings.Contains(out, "labels") {
		t.Fatalf("the group change plans the member's labels:\n%s", out)
	}
	w.Must("apply", "-auto-approve", "-input=false")
	got, err := acctest.FleetAPI(t).GetMember(context.Background(), mustFleet(t), "spare-1")
	if err != nil {
		t.Fatal(err)
	}
	if g, l := got.Properties.Group, fmt.Sprint(got.Properties.Labels); g != "prod" || l != fmt.Sprint(outside) {
		t.Fatalf("spare-1 after the group change: group %q, labels %s; want prod and %s", g, l, fmt.Sprint(outside))
	}
	w.Must("destroy", "-auto-approve", "-input=false")
}

func mustFleet(t *testing.T) fleetapi.FleetID {
	t.Helper()
	f, err := fleetapi.ParseFleetID(fleetID)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// labelMember sets a member's labels outside Terraform (as `az fleet member update --labels` does),
// keeping its cluster and group, and returns them.
func labelMember(t *testing.T, name string, labels map[string]string) map[string]string {
	t.Helper()
	ctx, c, f := context.Background(), acctest.FleetAPI(t), mustFleet(t)
	m, err := c.GetMember(ctx, f, name)
	if err != nil {
		t.Fatal(err)
	}
	m.Properties.Labels = labels
	p, err := c.BeginCreateOrUpdateMember(ctx, f, name, fleetapi.FleetMember{Properties: m.Properties}, nil)
	if _, err := shared.PollDone(ctx, p, err); err != nil {
		t.Fatalf("labelling %s: %v", name, err)
	}
	return labels
}

// fleetWrites counts the writes the Fleet API emulator has answered: PUT, PATCH, DELETE, and POST
// other than listCredentials (a read that ARM serves as POST).
func fleetWrites(t *testing.T) int {
	n := 0
	for _, r := range acctest.Current(t).Requests(t) {
		switch {
		case !strings.Contains(r.Path, "/fleets/"), r.Method == "GET", r.Method == "HEAD":
		case r.Method == "POST" && strings.Contains(r.Path, "/list"):
		default:
			n++
		}
	}
	return n
}
