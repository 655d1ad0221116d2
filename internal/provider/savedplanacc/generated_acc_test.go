package savedplanacc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// The plan/apply contract, generated: for every previewed resource type and every input its
// preview reads (previewReads), a saved plan computed with `facts` applies after that input moved
// out of band (movers_acc_test.go), state keeps the reviewed preview, and the moved-warning names
// the input; and per type, a saved plan without `facts` applies quietly when nothing moved. An input
// a preview reads only when it updates its resource (genConfig.updateReads) is tested on an update:
// the resource created first, the change planned with `facts`.

// inputs are every input a preview can read, enumerated from the view (each method of view.Fleet
// and the inputs view.MethodInputs says it reads), so that an input added to the view has to be
// moved here the day it is added.
var inputs = func() []string {
	var out []string
	fleet := reflect.TypeOf((*view.Fleet)(nil)).Elem()
	for i := range fleet.NumMethod() {
		for _, in := range view.MethodInputs[fleet.Method(i).Name] {
			if !slices.Contains(out, string(in)) {
				out = append(out, string(in))
			}
		}
	}
	return out
}()

// previewReads are, by resource type, the inputs its preview.Spec declares it reads
// (provider.PreviewInputs); a preview that reads another fails its plan.
var previewReads = func() map[string][]string {
	out := map[string][]string{}
	for typ, ins := range provider.PreviewInputs() {
		for _, in := range ins {
			out[typ] = append(out[typ], string(in))
		}
	}
	return out
}()

// warningNamesInputs: each line of what moved reads "<input name>: <what>" (facts.Moved).
const warningNamesInputs = true

// genParallel bounds the groups that run at once beside the hub's lane: they mostly wait (for the
// Fleet API's clock, the emulator), so more than the machine's cores.
const genParallel = 3

// genConfig is a previewed resource type's configuration in a group's working folder: what it
// needs outside Terraform (setup), what it needs applied before the plan (base, then ready), and
// the previewed resource itself (previewed, facts the `facts` line or "" for none). Names derive
// from the group's prefix, so that groups running at once do not meet.
//
// A preview that reads some inputs only when it updates the resource (updateReads: an existing
// placement's latest resources and the override snapshots that apply to them) is planned as an
// update in those inputs' groups: the base stage creates the resource as previewed(g, "") has it
// (without facts), updateSetup records what the update's facts must read, updateReady waits until
// the update's preview can be planned, and the plan, with facts, changes it to updated (a change
// of an attribute the preview follows).
type genConfig struct {
	addr      string // the previewed resource's address
	hub       bool   // the preview reads the hub (the group runs in the hub's lane)
	setup     func(t *testing.T, g *genGroup)
	base      string // HCL, %[1]s the prefix
	ready     func(t *testing.T, g *genGroup)
	previewed func(g *genGroup, facts string) string

	updateReads []string // inputs of previewReads the preview reads only on update
	updateSetup func(t *testing.T, g *genGroup)
	updateReady func(t *testing.T, g *genGroup)
	updated     func(g *genGroup, facts string) string
}

// updating says the group plans typ as an update (its input is one typ's preview reads only then).
func (g *genGroup) updating(typ string) bool {
	return g.input != "" && slices.Contains(genConfigs[typ].updateReads, g.input)
}

// prodPolicy places on the env=prod clusters: prod-east-1 and prod-west-1 (prod-east-2 is tainted).
const prodPolicy = `policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }`

// sprintfPreviewed is a previewed func of an HCL template: %[1]s the prefix, %[2]s the facts line.
func sprintfPreviewed(hcl string) func(g *genGroup, facts string) string {
	return func(g *genGroup, facts string) string { return fmt.Sprintf(hcl, g.prefix, facts) }
}

// sprintfUpdated is sprintfPreviewed of the template with line added before the facts line: an
// update's change.
func sprintfUpdated(hcl, line string) func(g *genGroup, facts string) string {
	return sprintfPreviewed(strings.Replace(hcl, "%[2]s", line+"\n  %[2]s", 1))
}

// placementUpdateReads are what a placement's preview reads only when it updates a placement on
// the hub: its latest resources and the override snapshots of their namespaces (override_snapshots).
var placementUpdateReads = []string{string(facts.InputSelectedResources), string(facts.InputOverrideSnapshots)}

// placementUpdate is how a placement preview is planned as an update: the placement is created
// and settled (both env=prod clusters bound and Available, a resource snapshot cut), its latest
// resources read with the facts (override_placements), and its revision_history_limit, which the
// preview follows and the scheduler does not, changed from the default 10 to 5.
const placementUpdate = "revision_history_limit = 5"

// genPlacementHCL and genResourcePlacementHCL are fleet_placement's and fleet_resource_placement's
// previewed configurations.
const (
	genPlacementHCL = `
resource "fleet_placement" "gen" {
  name               = "%[1]s-pl"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s-pl"
  }
  ` + prodPolicy + `
  %[2]s
}
`
	genResourcePlacementHCL = `
resource "fleet_resource_placement" "gen" {
  namespace          = "%[1]s-rp"
  name               = "%[1]s-rp"
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "settings"
  }
  ` + prodPolicy + `
  %[2]s
}
`
)

var genConfigs = map[string]genConfig{
	// The namespace holds ConfigMap settings, which the selected resources mover changes.
	"fleet_placement": {
		hub:         true,
		addr:        "fleet_placement.gen",
		setup:       func(t *testing.T, g *genGroup) { g.namespace(t, g.prefix+"-pl", true) },
		previewed:   sprintfPreviewed(genPlacementHCL),
		updateReads: placementUpdateReads,
		updateSetup: func(t *testing.T, g *genGroup) { g.update(hub.ClusterPlacement(g.prefix + "-pl")) },
		updateReady: func(t *testing.T, g *genGroup) { overrideReady(t, hub.ClusterPlacement(g.prefix+"-pl")) },
		updated:     sprintfUpdated(genPlacementHCL, placementUpdate),
	},
	"fleet_resource_placement": {
		hub:         true,
		addr:        "fleet_resource_placement.gen",
		setup:       func(t *testing.T, g *genGroup) { g.namespace(t, g.prefix+"-rp", true) },
		previewed:   sprintfPreviewed(genResourcePlacementHCL),
		updateReads: placementUpdateReads,
		updateSetup: func(t *testing.T, g *genGroup) {
			g.update(hub.PlacementKey{Namespace: g.prefix + "-rp", Name: g.prefix + "-rp"})
		},
		updateReady: func(t *testing.T, g *genGroup) {
			overrideReady(t, hub.PlacementKey{Namespace: g.prefix + "-rp", Name: g.prefix + "-rp"})
		},
		updated: sprintfUpdated(genResourcePlacementHCL, placementUpdate),
	},
	"fleet_cluster_resource_override": {
		hub:  true,
		addr: "fleet_cluster_resource_override.gen",
		setup: func(t *testing.T, g *genGroup) {
			g.namespace(t, g.prefix+"-cro", true)
			g.own(hub.ClusterPlacement(g.prefix+"-cro"), true)
		},
		base: `
resource "fleet_placement" "cro" {
  name               = "%[1]s-cro"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s-cro"
  }
  ` + prodPolicy + `
  lifecycle { ignore_changes = [policy] }
}
`,
		ready: func(t *testing.T, g *genGroup) { overrideReady(t, hub.ClusterPlacement(g.prefix+"-cro")) },
		previewed: sprintfPreviewed(`
resource "fleet_cluster_resource_override" "gen" {
  name               = "%[1]s-cro"
  placement {
    name = fleet_placement.cro.name
  }
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s-cro"
  }
  ` + tierRule("add", "/metadata/labels/tier") + `
  %[2]s
}
`),
	},
	"fleet_resource_override": {
		hub:  true,
		addr: "fleet_resource_override.gen",
		setup: func(t *testing.T, g *genGroup) {
			g.namespace(t, g.prefix+"-ro", true)
			g.own(hub.PlacementKey{Namespace: g.prefix + "-ro", Name: g.prefix + "-ro"}, true)
		},
		base: `
resource "fleet_resource_placement" "ro" {
  namespace          = "%[1]s-ro"
  name               = "%[1]s-ro"
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "settings"
  }
  ` + prodPolicy + `
  lifecycle { ignore_changes = [policy] }
}
`,
		ready: func(t *testing.T, g *genGroup) {
			overrideReady(t, hub.PlacementKey{Namespace: g.prefix + "-ro", Name: g.prefix + "-ro"})
		},
		previewed: sprintfPreviewed(`
resource "fleet_resource_override" "gen" {
  namespace          = "%[1]s-ro"
  name               = "%[1]s-ro"
  placement {
    name  = fleet_resource_placement.ro.name
    scope = "Namespaced"
  }
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "settings"
  }
  ` + tierRule("replace", "/data/tier") + `
  %[2]s
}
`),
	},
	"fleet_placement_disruption_budget": {
		hub:  true,
		addr: "fleet_placement_disruption_budget.gen",
		setup: func(t *testing.T, g *genGroup) {
			g.namespace(t, g.prefix+"-pdb", false)
			g.own(hub.ClusterPlacement(g.prefix+"-pdb"), false)
		},
		base: `
resource "fleet_placement" "pdb" {
  name               = "%[1]s-pdb"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s-pdb"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 2
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
  lifecycle { ignore_changes = [policy] }
}
`,
		ready: func(t *testing.T, g *genGroup) { availableBindings(t, g.prefix+"-pdb") },
		previewed: sprintfPreviewed(`
resource "fleet_placement_disruption_budget" "gen" {
  placement     = fleet_placement.pdb.name
  min_available = "50%%"
  %[2]s
}
`),
	},
	// The managed namespace's generated placement places on the env=prod clusters, as fleet_placement's.
	"fleet_managed_namespace": {
		hub:  true,
		addr: "fleet_managed_namespace.gen",
		previewed: func(g *genGroup, facts string) string {
			return fmt.Sprintf(`
resource "fleet_managed_namespace" "gen" {
  fleet_id      = "/subscriptions/%[3]s/resourceGroups/%[4]s/providers/Microsoft.ContainerService/fleets/%[5]s"
  name          = "%[1]s-mns"
  location      = "eastus"
  delete_policy = "Delete"
  `+strings.Replace(prodPolicy, "policy {", "placement {", 1)+`
  %[2]s
}
`, g.prefix, facts, os.Getenv("ARM_SUBSCRIPTION_ID"), os.Getenv("FLEET_RESOURCE_GROUP_NAME"), os.Getenv("FLEET_NAME"))
		},
	},
	// canary-east: no configuration here places on it, so its taints move no other group's preview.
	"fleet_member_cluster_taints": {
		hub:  true,
		addr: "fleet_member_cluster_taints.gen",
		previewed: sprintfPreviewed(`
resource "fleet_member_cluster_taints" "gen" {
  member_cluster = "canary-east"
  taint {
    key    = "%[1]s"
    value  = "gen"
    effect = "NoSchedule"
  }
  %[2]s
}
`),
	},
	"fleet_staged_update_strategy": {
		hub:  true,
		addr: "fleet_staged_update_strategy.gen",
		previewed: sprintfPreviewed(`
resource "fleet_staged_update_strategy" "gen" {
  name   = "%[1]s-sus"
  stage {
    name = "prod"
    label_selector {
      match_labels = { env = "prod" }
    }
  }
  %[2]s
}
`),
	},
	"fleet_staged_update_run": {
		hub:  true,
		addr: "fleet_staged_update_run.gen",
		setup: func(t *testing.T, g *genGroup) {
			g.namespace(t, g.prefix+"-sur", false)
			g.stagedRuns = append(g.stagedRuns, g.prefix+"-sur")
		},
		base: `
resource "fleet_placement" "sur" {
  name               = "%[1]s-sur"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s-sur"
  }
  ` + prodPolicy + `
  strategy {
    type = "External"
  }
}

resource "fleet_staged_update_strategy" "sur" {
  name   = "%[1]s-sur"
  stage {
    name = "prod"
    label_selector {
      match_labels = { env = "prod" }
    }
  }
}
`,
		ready: func(t *testing.T, g *genGroup) { bothScheduled(t, g.prefix+"-sur") },
		previewed: sprintfPreviewed(`
resource "fleet_staged_update_run" "gen" {
  name                        = "%[1]s-sur"
  placement_name              = fleet_placement.sur.id
  staged_update_strategy_name = fleet_staged_update_strategy.sur.id
  state                       = "Initialize"
  %[2]s
}
`),
	},
	"fleet_update_strategy": {
		addr: "fleet_update_strategy.gen",
		previewed: sprintfPreviewed(`
resource "fleet_update_strategy" "gen" {
  name   = "%[1]s-us"
  stage {
    name = "canary"
    group {
      name = "canary"
    }
  }
  stage {
    name = "prod"
    group {
      name = "prod"
    }
  }
  %[2]s
}
`),
	},
	// The run and the profile follow an update strategy another workspace owns (g.strategy), by ID.
	"fleet_update_run": {
		addr:  "fleet_update_run.gen",
		setup: func(t *testing.T, g *genGroup) { g.ownedStrategy(t) },
		previewed: func(g *genGroup, facts string) string {
			return fmt.Sprintf(`
resource "fleet_update_run" "gen" {
  name                   = "%[1]s-ur"
  update_strategy_id     = %[2]q
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  state                  = "NotStarted"
  %[3]s
}
`, g.prefix, g.strategy, facts)
		},
	},
	"fleet_auto_upgrade_profile": {
		addr:  "fleet_auto_upgrade_profile.gen",
		setup: func(t *testing.T, g *genGroup) { g.ownedStrategy(t) },
		previewed: func(g *genGroup, facts string) string {
			return fmt.Sprintf(`
resource "fleet_auto_upgrade_profile" "gen" {
  name               = "%[1]s-aup"
  channel            = "Stable"
  update_strategy_id = %[2]q
  %[3]s
}
`, g.prefix, g.strategy, facts)
		},
	},
	// One of canary-east's NodePools per group (disruptionPools): two groups never set one pool.
	"fleet_nodepool_disruption": {
		addr: "fleet_nodepool_disruption.gen",
		setup: func(t *testing.T, g *genGroup) {
			g.pool = disruptionPools[g.input]
			if g.pool == "" {
				t.Fatalf("no NodePool of canary-east for group %q (disruptionPools)", g.input)
			}
			g.clusters = append(g.clusters, "canary-east")
		},
		previewed: func(g *genGroup, facts string) string {
			return fmt.Sprintf(`
resource "fleet_nodepool_disruption" "gen" {
  cluster              = "canary-east"
  node_pool            = %[1]q
  consolidation_policy = "WhenEmptyOrUnderutilized"
  budget {
    nodes = "20%%"
  }
  %[2]s
}
`, g.pool, facts)
		},
	},
}

// disruptionPools are canary-east's NodePools (the fleet file's karpenter) by group: the clock's
// "default" has a 700-hour node that expires at 720 hours, the Karpenter picture's "guarded" an
// empty node a pod lands on; the group without facts gets "pinned", whose nodes never go.
var disruptionPools = map[string]string{"clock": "default", "Karpenter picture": "guarded", "preview settings": "batch", "": "pinned"}

// overrideReady waits until the placement has a resource snapshot and bindings to both env=prod
// clusters, all Available: an override's preview at plan needs the first two, and a preview
// computed again at apply without facts must not see the bindings change.
func overrideReady(t *testing.T, key hub.PlacementKey) {
	t.Helper()
	availableBindingsAt(t, key)
	h := acctest.NewHubClients(t).Hub
	if err := acctest.Eventually(time.Minute, "a resource snapshot of "+key.String(), func() (bool, string) {
		v, err := h.ResourceVersionsAt(context.Background(), key)
		if err != nil {
			return false, err.Error()
		}
		return v.Latest != "", "latest " + v.Latest
	}); err != nil {
		t.Fatal(err)
	}
}

// genGroup is one working folder: every resource type that reads input, planned with facts,
// input moved, the plan applied (input "": every type, without facts, nothing moved).
type genGroup struct {
	input, prefix string
	types         []string
	w             *acctest.Workdir
	env           []string // keys set with setEnv until the apply

	// What the types' setups record.
	placements []hub.PlacementKey // the placements of the group's base
	overrides  []hub.PlacementKey // placements whose overrides are previewed (override_placements)
	updated    []hub.PlacementKey // placements whose preview is planned as an update (also in overrides)
	stagedRuns []string           // staged runs (placement and strategy of one name)
	clusters   []string           // clusters whose Karpenter picture to read
	strategy   string             // the ID of the update strategy another workspace owns
	rings      []string           // its stages (one group each)
	pool       string             // canary-east's NodePool of fleet_nodepool_disruption
	// windowOpens is when the Fleet API clock's mover made canary-east's window open.
	windowOpens time.Time
	created     map[string]bool // namespaces and strategies set up once
}

// groupPrefix is "gen-" and the initials of input's words ("hub member clusters": gen-hmc), or
// gen-nf for the group without facts.
func groupPrefix(input string) string {
	if input == "" {
		return "gen-nf"
	}
	var b strings.Builder
	for _, w := range strings.Fields(input) {
		b.WriteString(strings.ToLower(w[:1]))
	}
	return "gen-" + b.String()
}

// namespace creates ns on the hub (with ConfigMap settings when settings) until the group ends.
func (g *genGroup) namespace(t *testing.T, ns string, settings bool) {
	t.Helper()
	if g.created[ns] {
		return
	}
	g.created[ns] = true
	if settings {
		namespaceWithSettings(t, ns)
	} else {
		acctest.NewHubClients(t).CreateNamespace(t, ns)
	}
	kube := acctest.HubKube(t).Kubernetes
	t.Cleanup(func() { // after the working folder's destroy (registered later, so run earlier)
		_ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
}

// own records a placement of the group's base; overridden says an override of it is previewed.
func (g *genGroup) own(key hub.PlacementKey, overridden bool) {
	g.placements = append(g.placements, key)
	if overridden {
		g.overrides = append(g.overrides, key)
	}
}

// update records a placement the group creates in its base and whose preview it plans as an
// update: its latest resources and their override snapshots are read with the facts
// (override_placements), and no previewed override overrides what it carries.
func (g *genGroup) update(key hub.PlacementKey) {
	g.own(key, true)
	g.updated = append(g.updated, key)
}

// ownedStrategy writes the group's update strategy through the Fleet API, as another workspace
// owning it would: rings, one stage and group each.
func (g *genGroup) ownedStrategy(t *testing.T) {
	t.Helper()
	if g.strategy == "" {
		g.strategy = putStrategy(t, g.prefix+"-rings", g.rings...)
	}
}

// setEnv sets an environment variable of the group's terraform runs until the apply is done.
func (g *genGroup) setEnv(key, value string) {
	g.w.SetEnv(key, value)
	g.env = append(g.env, key)
}

// hcl is the group's configuration: the bases (with, as created, the resources the group plans
// as updates), and with previewed the previewed resources (updated, for those), with `facts` from
// one data source reading what each of them needs when the group has an input.
func (g *genGroup) hcl(previewed bool) string {
	var b strings.Builder
	for _, typ := range g.types {
		c := genConfigs[typ]
		if c.base != "" {
			fmt.Fprintf(&b, c.base, g.prefix)
		}
		if !previewed && g.updating(typ) {
			b.WriteString(c.previewed(g, ""))
		}
	}
	if !previewed {
		return b.String()
	}
	facts := ""
	if g.input != "" {
		facts = "facts = data.fleet_facts.gen.content"
		b.WriteString("\ndata \"fleet_facts\" \"gen\" {\n")
		list := func(attr string, items []string) {
			if len(items) > 0 {
				q, _ := json.Marshal(items)
				fmt.Fprintf(&b, "  %s = %s\n", attr, q)
			}
		}
		var refs []string
		for _, k := range g.overrides {
			refs = append(refs, k.String())
		}
		list("override_placements", refs)
		list("clusters", g.clusters)
		for _, r := range g.stagedRuns {
			fmt.Fprintf(&b, "  staged_run {\n    placement_name              = %q\n    staged_update_strategy_name = %q\n  }\n", r, r)
		}
		b.WriteString("}\n")
	}
	for _, typ := range g.types {
		if g.updating(typ) {
			b.WriteString(genConfigs[typ].updated(g, facts))
		} else {
			b.WriteString(genConfigs[typ].previewed(g, facts))
		}
	}
	return b.String()
}

// previewedTypes are the provider's resource types with a `facts` attribute.
func previewedTypes(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	p := provider.New("test")()
	var meta fwprovider.MetadataResponse
	p.Metadata(ctx, fwprovider.MetadataRequest{}, &meta)
	var out []string
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var m resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		if _, ok := s.Schema.Attributes["facts"]; ok {
			out = append(out, m.TypeName)
		}
	}
	sort.Strings(out)
	return out
}

// sharedMoves: a mover whose change a preview computed from the live fleet would see in another
// group (a member's version or window, a region's release, a pod) holds it for reading from its
// move until its undo; the group without facts, whose apply computes every preview again from the
// live fleet, holds it for writing from its plan until its apply.
var sharedMoves sync.RWMutex

// TestAccSavedPlanGenerated is the plan/apply contract for every (previewed resource type, input its
// preview reads) of previewReads, one working folder per input (every type reading it planned,
// the input moved, the plan applied), and every type once more planned without facts and applied
// with nothing moved. A new input without a mover, a new previewed type without a configuration,
// fail it.
func TestAccSavedPlanGenerated(t *testing.T) {
	known := map[string]bool{}
	for _, in := range inputs {
		known[in] = true
		if _, ok := movers[in]; !ok {
			t.Errorf("input %q has no mover (movers_acc_test.go): no case shows a saved plan applies after it moved", in)
		}
	}
	previewed := previewedTypes(t)
	for _, typ := range previewed {
		if _, ok := previewReads[typ]; !ok {
			t.Errorf("resource type %s has a preview (a facts attribute) and no entry in previewReads", typ)
		}
	}
	var types []string
	byInput := map[string][]string{}
	for typ, reads := range previewReads {
		if !slices.Contains(previewed, typ) {
			t.Errorf("previewReads names %s, which has no facts attribute in the provider", typ)
		}
		if _, ok := genConfigs[typ]; !ok {
			t.Errorf("previewed resource type %s has no configuration (genConfigs)", typ)
			continue
		}
		types = append(types, typ)
		for _, in := range reads {
			if !known[in] {
				t.Errorf("previewReads: %s reads %q, which is not an input", typ, in)
				continue
			}
			byInput[in] = append(byInput[in], typ)
		}
	}
	for typ, c := range genConfigs {
		for _, in := range c.updateReads {
			if !slices.Contains(previewReads[typ], in) {
				t.Errorf("genConfigs: %s's preview reads %q on update, which its preview.Spec's Reads does not declare", typ, in)
			}
		}
		if len(c.updateReads) > 0 && (c.updated == nil || c.updateReady == nil) {
			t.Errorf("genConfigs: %s's preview reads %v only on update, and its configuration says no update (updated, updateReady)", typ, c.updateReads)
		}
	}
	sort.Strings(types)
	prefixes := map[string]string{groupPrefix(""): "without facts"}
	if t.Failed() {
		t.FailNow()
	}
	acctest.Current(t) // the tables are checked without TF_ACC too

	type group struct {
		input string
		types []string
	}
	var groups []group
	cases, updates := 0, 0
	for _, in := range inputs {
		if _, ok := movers[in]; !ok {
			continue
		}
		if len(byInput[in]) == 0 {
			t.Logf("no previewed resource type reads %q", in)
			continue
		}
		if other, dup := prefixes[groupPrefix(in)]; dup {
			t.Errorf("inputs %q and %q have one prefix %s", in, other, groupPrefix(in))
			continue
		}
		prefixes[groupPrefix(in)] = in
		sort.Strings(byInput[in])
		groups = append(groups, group{in, byInput[in]})
		cases += len(byInput[in])
		for _, typ := range byInput[in] {
			if slices.Contains(genConfigs[typ].updateReads, in) {
				updates++
			}
		}
	}
	groups = append(groups, group{"", types})
	cases += len(types)
	t.Logf("%d cases: %d (resource type, input) pairs with facts (%d of them updates) in %d working folders, and %d resource types without facts in one",
		cases, cases-len(types), updates, len(groups)-1, len(types))

	// Two lanes. A group whose previews read the hub runs alone in the hub's: every placement,
	// binding, taint and override any group makes is in every hub preview's facts, and what moved
	// is said in at most 10 lines. The others (the Fleet API's members, windows, strategies and
	// regions, a cluster's Karpenter picture) run beside it, at most genParallel at once, the
	// slowest first. The group without facts is the hub lane's last.
	var hubLane, others []group
	for _, gr := range groups {
		onHub := false
		for _, typ := range gr.types {
			onHub = onHub || genConfigs[typ].hub
		}
		if onHub {
			hubLane = append(hubLane, gr)
		} else {
			others = append(others, gr)
		}
	}
	sort.SliceStable(others, func(i, j int) bool { return movers[others[i].input].slow && !movers[others[j].input].slow })
	// run runs a group; with turn, once its base is applied it says so (prepared) and waits for turn.
	run := func(gr group, prepared chan<- struct{}, turn <-chan struct{}) {
		name := gr.input
		if name == "" {
			name = "without facts nothing moved"
		}
		t.Run(name, func(t *testing.T) { runGroup(t, gr.input, gr.types, prepared, turn) })
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A mover that waits for the hub agent's next resource snapshot (early) has its group's base
		// applied first: the hub agent cuts one at most every 30 s, counted from the base's.
		type gate struct{ prepared, turn, done chan struct{} }
		var early []gate
		for _, gr := range hubLane {
			if !movers[gr.input].early {
				continue
			}
			gt := gate{make(chan struct{}), make(chan struct{}), make(chan struct{})}
			early = append(early, gt)
			go func() { defer close(gt.done); run(gr, gt.prepared, gt.turn) }()
			select { // its base settled (or it failed): the lane is quiet again
			case <-gt.prepared:
			case <-gt.done:
			}
		}
		for _, gr := range hubLane {
			if !movers[gr.input].early {
				run(gr, nil, nil)
			}
		}
		for _, gt := range early {
			close(gt.turn)
			<-gt.done
		}
	}()
	slots := make(chan struct{}, genParallel)
	for _, gr := range others {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			run(gr, nil, nil)
		}()
	}
	wg.Wait()
}

// runGroup is one working folder: setup, the bases applied, the plan saved, input moved (its
// mover; none without facts), the plan applied, then one subtest per resource type. With turn,
// it closes prepared once the bases are applied and waits for turn to plan.
func runGroup(t *testing.T, input string, types []string, prepared chan<- struct{}, turn <-chan struct{}) {
	g := &genGroup{input: input, prefix: groupPrefix(input), types: types, rings: []string{"canary", "prod"}, created: map[string]bool{}}
	if input == "" {
		// Without facts the run's preview is computed again from the live fleet at apply: of the
		// prod stage only, whose members' windows no mover without sharedMoves changes.
		g.rings = []string{"prod"}
	}
	for _, typ := range types {
		c := genConfigs[typ]
		if c.setup != nil {
			c.setup(t, g)
		}
		if g.updating(typ) && c.updateSetup != nil {
			c.updateSetup(t, g)
		}
	}
	g.w = workdir(t, g.hcl(false))
	if base := g.hcl(false); strings.Contains(base, "resource ") {
		g.w.Must("apply", "-auto-approve")
		for _, typ := range types {
			c := genConfigs[typ]
			if c.ready != nil {
				c.ready(t, g)
			}
			if g.updating(typ) {
				c.updateReady(t, g)
			}
		}
	}
	g.w.Write("main.tf", g.hcl(true))
	if turn != nil {
		close(prepared)
		<-turn
	}

	mv := movers[input]
	if input == "" {
		sharedMoves.Lock()
		defer sharedMoves.Unlock()
	}
	if mv.prepare != nil {
		mv.prepare(t, g)
	}
	g.w.Must("plan", "-out=tfplan")
	planned, actions := plannedPreviews(t, g.w)
	token := ""
	if mv.move != nil {
		if mv.shared {
			sharedMoves.RLock()
			t.Cleanup(sharedMoves.RUnlock) // after the mover's undo, registered next
		}
		token = mv.move(t, g)
	}
	out := g.w.Must("apply", "-json", "tfplan")
	for _, k := range g.env {
		g.w.SetEnv(k, "")
	}
	if input == "" && strings.Contains(out, "The fleet moved") {
		t.Errorf("apply of an unmoved fleet warned:\n%s", out)
	}
	ws := acctest.JSONWarnings(out)
	state := statePreviews(t, g.w)
	for _, typ := range types {
		addr := genConfigs[typ].addr
		t.Run(typ, func(t *testing.T) {
			want, ok := planned[addr]
			if g.updating(typ) && !slices.Equal(actions[addr], []string{"update"}) {
				t.Fatalf("%s: planned %v, not the update whose preview reads %s", addr, actions[addr], input)
			}
			if !ok || want == nil {
				t.Fatalf("%s: no preview at plan", addr)
			}
			if got := state[addr]; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: state's preview is not the reviewed one:\nplanned %v\nstate   %v", addr, want, got)
			}
			checkMovedWarning(t, ws[addr], addr, input, token)
		})
	}
}

// checkMovedWarning checks address's warnings of an apply after input moved: one says the fleet
// moved, with what moved (token) and, once the warning names inputs, input; after nothing moved
// (input ""), none does.
func checkMovedWarning(t *testing.T, ws []acctest.Warning, address, input, token string) {
	t.Helper()
	var moved *acctest.Warning
	for i := range ws {
		if strings.HasPrefix(ws[i].Summary, "The fleet moved since the plan") {
			moved = &ws[i]
		}
	}
	switch {
	case input == "" && moved != nil:
		t.Errorf("%s: nothing moved and the apply warned %q:\n%s", address, moved.Summary, moved.Detail)
	case input == "":
	case moved == nil:
		t.Errorf("%s: no moved-warning after %s moved; warnings: %+v", address, input, ws)
	default:
		if token != "" && !regexp.MustCompile(token).MatchString(moved.Detail) {
			t.Errorf("%s: the moved-warning does not say what the %s mover changed (%s):\n%s", address, input, token, moved.Detail)
		}
		if warningNamesInputs && !regexp.MustCompile(`(?m)^\s*- `+regexp.QuoteMeta(input)+`: `).MatchString(moved.Detail) {
			t.Errorf("%s: the moved-warning does not name %q:\n%s", address, input, moved.Detail)
		}
	}
}

// plannedPreviews are the previews the saved plan holds (the reviewed ones), and its actions, by
// address.
func plannedPreviews(t *testing.T, w *acctest.Workdir) (map[string]any, map[string][]string) {
	t.Helper()
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string       `json:"actions"`
				After   map[string]any `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(w.Must("show", "-json", "tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	out, actions := map[string]any{}, map[string][]string{}
	for _, rc := range plan.ResourceChanges {
		out[rc.Address] = rc.Change.After["preview"]
		actions[rc.Address] = rc.Change.Actions
	}
	return out, actions
}

// statePreviews are the previews state holds, by address, from the working folder's state file.
func statePreviews(t *testing.T, w *acctest.Workdir) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, r := range st.Resources {
		if r.Mode == "managed" && len(r.Instances) == 1 {
			out[r.Type+"."+r.Name] = r.Instances[0].Attributes["preview"]
		}
	}
	return out
}
