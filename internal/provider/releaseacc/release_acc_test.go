package releaseacc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// version is what the smoke test releases: the GNUmakefile's VERSION.
const version = "0.1.0"

// The fleet of testdata/fleet.yaml.
const fleetPrefix = "/subscriptions/00000000-0000-0000-0000-000000000009/resourceGroups/rg-release/providers/Microsoft.ContainerService"

// released is a working folder of the release build, initialised from the mirror with a version
// constraint; init must install exactly that version from the mirror.
func released(t *testing.T, mirror, hcl string) *acctest.Workdir {
	t.Helper()
	w := acctest.NewReleaseWorkdir(t, mirror, "~> 0.1.0", hcl)
	acctest.Lines(t, w.Must("init", "-input=false"),
		`Installing fleetops/fleet v`+strings.ReplaceAll(version, ".", `\.`),
		`Installed fleetops/fleet v`+strings.ReplaceAll(version, ".", `\.`),
		`Terraform has been successfully initialized!`)
	acctest.Lines(t, w.Must("version"), `provider registry.terraform.io/fleetops/fleet v`+strings.ReplaceAll(version, ".", `\.`))
	return w
}

// hubObjects creates what the placements select on the hub, as an application team would with
// kubectl: the web, api and team-web namespaces and team-web's ConfigMap.
func hubObjects(t *testing.T) {
	t.Helper()
	h := acctest.NewHubClients(t)
	for _, ns := range []string{"web", "api", "tools", "team-web"} {
		h.CreateNamespace(t, ns)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-web", Name: "web-config", Labels: map[string]string{"app": "web"}},
		Data: map[string]string{"greeting": "hello"}}
	if err := acctest.HubClient(t).Create(context.Background(), cm); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

// TestAccRelease_everyFeature is the release smoke test on the Terraform the acceptance tests run
// (v1.16.0 in make test): every resource and data source of the README's feature list through a
// reviewed saved plan, then members, taints, the read-back data sources and an action, then adoption
// with terraform query and import by identity.
func TestAccRelease_everyFeature(t *testing.T) {
	mirror, build := acctest.BuildRelease(t, version)
	t.Logf("built: %s", build)
	hubObjects(t)
	w := released(t, mirror, savedPlanConfig)

	// A saved plan, reviewed, then applied from the file: the previews are in the plan.
	plan := w.Must("plan", "-input=false", "-out=tfplan")
	acctest.Lines(t, plan,
		`data.fleet_facts.at_plan: Read complete`,
		`fleet_auto_upgrade_profile.stable will be created`,
		`fleet_cluster_resource_override.web will be created`,
		`fleet_managed_namespace.shop will be created`,
		`fleet_nodepool_disruption.default will be created`,
		`fleet_placement.web will be created`,
		`fleet_update_run.k8s will be created`,
		`Plan: 16 to add, 0 to change, 0 to destroy.`)
	for _, want := range []string{`"prod-east-1"`, `"prod-west-1"`, `target_kubernetes_version`, `"1.33.1"`} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan does not show %s:\n%s", want, plan)
		}
	}
	acctest.Lines(t, w.Must("apply", "-input=false", "tfplan"), `Apply complete! Resources: 16 added, 0 changed, 0 destroyed.`)
	state := w.State()
	// The managed namespace went where its saved plan's preview said (the hub agent's picks).
	var planned []any
	selected, _ := acctest.Dig(state["fleet_managed_namespace.shop"], "preview", "selected").([]any)
	for _, s := range selected {
		planned = append(planned, acctest.Dig(s, "cluster"))
	}
	if placed := acctest.Dig(state["fleet_managed_namespace.shop"], "placed_members"); len(planned) == 0 || fmt.Sprint(placed) != fmt.Sprint(planned) {
		t.Errorf("managed namespace: placed_members %v, the plan's preview picked %v", placed, planned)
	}
	if got := acctest.Dig(state["fleet_placement.tools"], "status", "apply", "applied_count"); got != float64(1) {
		t.Errorf("tools placement: status.apply.applied_count = %v, want 1 (KubeFleet's member agent on canary-east)", got)
	}
	if got := acctest.Dig(state["fleet_staged_update_run.api_v1"], "status", "state"); got != "Succeeded" {
		t.Errorf("staged run: status.state = %v, want Succeeded", got)
	}

	// A member joined, the read-back data sources and the actions: a plain apply; then the new
	// member's taints (their plan reads the MemberCluster, which exists once the member joined).
	w.Write("main.tf", savedPlanConfig+joinConfig)
	acctest.Lines(t, w.Must("apply", "-input=false", "-auto-approve"),
		`fleet_member.spare: Creation complete`,
		`Apply complete! Resources: 1 added, 0 changed, 0 destroyed.`)
	w.Write("main.tf", savedPlanConfig+joinConfig+taintConfig)
	acctest.Lines(t, w.Must("apply", "-input=false", "-auto-approve"),
		`fleet_member_cluster_taints.spare: Creation complete`,
		`Apply complete! Resources: 1 added, 0 changed, 0 destroyed.`)
	if got := acctest.Dig(w.StateValues("fleet_member_cluster_taints.spare"), "member_cluster"); got != "spare-1" {
		t.Errorf("taints: member_cluster = %v", got)
	}

	// An action invoked, with its progress lines.
	acctest.Lines(t, w.Must("apply", "-input=false", "-auto-approve", "-invoke=action.fleet_update_run_start.k8s"),
		`Action started: action.fleet_update_run_start.k8s \(triggered by CLI\)`,
		`action.fleet_update_run_start.k8s \(triggered by CLI\): starting update run rel-k8s \(NotStarted\)`,
		`action.fleet_update_run_start.k8s \(triggered by CLI\): update run rel-k8s Running, stage canary`,
		`action.fleet_update_run_start.k8s \(triggered by CLI\): update run rel-k8s Completed — members 3/3 done`,
		`Apply complete! Resources: 0 added, 0 changed, 0 destroyed. Actions: 1 invoked.`)
	// Refresh shows what the run did.
	w.Must("apply", "-input=false", "-auto-approve", "-refresh-only")
	if got := acctest.Dig(w.StateValues("fleet_update_run.k8s"), "status", "state"); got != "Completed" {
		t.Errorf("after refresh: update run status.state = %v, want Completed", got)
	}
	out := w.Must("output", "-json", "read_back")
	for _, want := range []string{`"run_state":"Completed"`, `"strategy_stages":2`, `"profile_channel":"Stable"`} {
		if !strings.Contains(strings.ReplaceAll(out, " ", ""), want) {
			t.Errorf("output read_back lacks %s: %s", want, out)
		}
	}

	// Adoption: terraform query finds the prod members, -generate-config-out writes resource and
	// import blocks by identity, and their plan is imports only.
	adopt := released(t, mirror, "")
	adopt.Write("adopt.tfquery.hcl", adoptQuery)
	acctest.Lines(t, adopt.Must("query"), `list\.fleet_member\.prod\s+id=`+fleetPrefix+`/fleets/release/members/prod-east-1`)
	adopt.Must("query", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(adopt.Dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(generated), "identity = {") != 2 {
		t.Fatalf("generated.tf should import both prod members by identity:\n%s", generated)
	}
	acctest.Lines(t, adopt.Must("plan", "-input=false"), `Plan: 2 to import, 0 to add, 0 to change, 0 to destroy.`)
}

// TestAccRelease_oldestTerraform: the release build on the oldest Terraform the README promises
// (the terraform on PATH in make testsmoke: 1.11.4 here), for what needs no Terraform 1.14: init from
// the mirror, a saved plan of a placement and an update run applied from the file.
func TestAccRelease_oldestTerraform(t *testing.T) {
	mirror, _ := acctest.BuildRelease(t, version)
	hubObjects(t)
	w := released(t, mirror, `
resource "fleet_placement" "old" {
  name = "old-web"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "web"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 1
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
}

resource "fleet_update_run" "old" {
  name  = "old-node-images"
  state = "NotStarted"
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
  managed_cluster_update {
    upgrade {
      type = "NodeImageOnly"
    }
  }
}
`)
	acctest.Lines(t, w.Must("plan", "-input=false", "-out=tfplan"), `fleet_placement.old will be created`, `Plan: 2 to add, 0 to change, 0 to destroy.`)
	acctest.Lines(t, w.Must("apply", "-input=false", "tfplan"), `Apply complete! Resources: 2 added, 0 changed, 0 destroyed.`)
	acctest.Lines(t, w.Must("plan", "-input=false", "-detailed-exitcode"), `No changes.`)
}
