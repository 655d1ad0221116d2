package rollout_test

import (
	"context"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/rollout"
)

// upgradeV0 drives UpgradeResourceState, as Terraform does with the state of the nested-attribute
// provider (schema version 0), checks the schema is at version 1 and decodes the result into model;
// it returns the upgraded raw value too.
func upgradeV0(t *testing.T, typeName string, r fwresource.Resource, v0 string, model any) tftypes.Value {
	t.Helper()
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(v0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("%s: %s", d.Summary, d.Detail)
	}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	if sresp.Schema.Version != 1 {
		t.Errorf("%s schema version %d, want 1", typeName, sresp.Schema.Version)
	}
	raw, err := resp.UpgradedState.Unmarshal(sresp.Schema.Type().TerraformType(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if d := (tfsdk.State{Schema: sresp.Schema, Raw: raw}).Get(ctx, model); d.HasError() {
		t.Fatal(d)
	}
	return raw
}

// attrAt is the value at steps (attribute names and list indexes) of v.
func attrAt(t *testing.T, v tftypes.Value, steps ...any) tftypes.Value {
	t.Helper()
	p := tftypes.NewAttributePath()
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			p = p.WithAttributeName(s)
		case int:
			p = p.WithElementKeyInt(s)
		}
	}
	got, _, err := tftypes.WalkAttributePath(v, p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return got.(tftypes.Value)
}

func TestUpgradeUpdateStrategyToBlocks(t *testing.T) {
	// fleet_update_strategy's state as the nested-attribute provider wrote it (schema version 0).
	v0 := `{
  "id": "` + acctest.ExampleFleetID + `/updateStrategies/rings",
  "name": "rings",
  "fleet_id": "` + acctest.ExampleFleetID + `",
  "stages": [
    {"name": "canary", "max_concurrency": null, "after_stage_wait_in_seconds": 3600,
     "groups": [{"name": "canary", "max_concurrency": "1", "before_gates": null, "after_gates": [{"type": "Approval", "display_name": "canary ok"}]}],
     "before_gates": null, "after_gates": [{"type": "Approval", "display_name": null}]},
    {"name": "prod", "max_concurrency": "25%", "after_stage_wait_in_seconds": null,
     "groups": [{"name": "prod-east", "max_concurrency": null, "before_gates": [{"type": "Approval", "display_name": "east"}], "after_gates": null},
                {"name": "prod-west", "max_concurrency": null, "before_gates": null, "after_gates": null}],
     "before_gates": [{"type": "Approval", "display_name": "change board"}], "after_gates": null}
  ],
  "timeouts": null,
  "facts": null,
  "preview": {
    "stages": [
      {"name": "canary", "groups": [{"name": "canary", "member_count": 1, "members": ["c1"], "members_omitted": 0}]},
      {"name": "prod", "groups": [{"name": "prod-east", "member_count": 2, "members": ["e1", "e2"], "members_omitted": 0},
                                  {"name": "prod-west", "member_count": 0, "members": null, "members_omitted": 0}]}
    ],
    "unselected_members": ["stray"],
    "unselected_member_count": 1
  }
}`
	var m rollout.UpdateStrategyModel
	raw := upgradeV0(t, "fleet_update_strategy", &rollout.UpdateStrategyResource{}, v0, &m)
	if len(m.Stages) != 2 || m.Stages[0].Name.ValueString() != "canary" || m.Stages[0].AfterStageWaitInSeconds.ValueInt64() != 3600 ||
		len(m.Stages[0].AfterGates) != 1 || len(m.Stages[0].BeforeGates) != 0 ||
		m.Stages[0].Groups[0].AfterGates[0].DisplayName.ValueString() != "canary ok" ||
		m.Stages[1].MaxConcurrency.ValueString() != "25%" || m.Stages[1].BeforeGates[0].DisplayName.ValueString() != "change board" ||
		len(m.Stages[1].Groups) != 2 || m.Stages[1].Groups[0].BeforeGates[0].DisplayName.ValueString() != "east" || m.Stages[1].Groups[1].Name.ValueString() != "prod-west" {
		t.Errorf("stage blocks %+v", m.Stages)
	}
	// The computed preview keeps its names.
	if got := attrAt(t, raw, "preview", "stages", 1, "groups", 0, "member_count"); !got.Equal(tftypes.NewValue(tftypes.Number, 2)) {
		t.Errorf("preview.stages[1].groups[0].member_count %s", got)
	}
	if m.ID.ValueString() != acctest.ExampleFleetID+"/updateStrategies/rings" || m.Name.ValueString() != "rings" {
		t.Errorf("id %s, name %s", m.ID, m.Name)
	}
}

func TestUpgradeUpdateRunToBlocks(t *testing.T) {
	// fleet_update_run's state as the nested-attribute provider wrote it (schema version 0): inline
	// stages, a skip, approvals, a preview and a status with their own (computed) stages and groups.
	v0 := `{
  "id": "` + acctest.ExampleFleetID + `/updateRuns/upgrade-133",
  "name": "upgrade-133",
  "fleet_id": "` + acctest.ExampleFleetID + `",
  "update_strategy_id": null,
  "stages": [
    {"name": "canary", "max_concurrency": null, "after_stage_wait_in_seconds": null,
     "groups": [{"name": "canary", "max_concurrency": null, "before_gates": null, "after_gates": [{"type": "Approval", "display_name": null}]}],
     "before_gates": null, "after_gates": null},
    {"name": "prod", "max_concurrency": null, "after_stage_wait_in_seconds": 600,
     "groups": [{"name": "prod", "max_concurrency": "50%", "before_gates": null, "after_gates": null}],
     "before_gates": [{"type": "Approval", "display_name": "go"}], "after_gates": null}
  ],
  "managed_cluster_update": {"upgrade": {"type": "Full", "kubernetes_version": "1.33.1"}, "node_image_selection": {"type": "Consistent", "custom_versions": null}},
  "state": "Running",
  "retry": null,
  "skip": [{"type": "Member", "name": "c2"}],
  "approvals": [{"stage": "canary", "group": "canary", "timing": "After"}, {"stage": "prod", "group": null, "timing": "Before"}],
  "wait_for": "none",
  "triggers": {"release": "2025-11"},
  "timeouts": null,
  "facts": null,
  "preview": {
    "member_count": 3, "stages_omitted": 0, "outcome": "Completed",
    "stages": [{"name": "canary", "after_stage_wait_in_seconds": null, "member_count": 2, "max_concurrency": 50, "groups_omitted": 0,
                "gates": null,
                "groups": [{"name": "canary", "member_count": 2, "max_concurrency": 1, "members_omitted": 0,
                            "gates": [{"timing": "After", "display_name": null, "type": "Approval"}],
                            "members": [{"position": 1, "name": "c1", "action": "upgrade"}]}]}]
  },
  "status": {
    "state": "Running",
    "stages": [{"name": "canary", "state": "Running",
                "groups": [{"name": "canary", "state": "Running", "members": [{"name": "c1", "state": "Running"}]}]}]
  }
}`
	var m rollout.UpdateRunModel
	raw := upgradeV0(t, "fleet_update_run", &rollout.UpdateRunResource{}, v0, &m)
	if len(m.Stages) != 2 || m.Stages[0].Groups[0].AfterGates[0].Type.ValueString() != "Approval" ||
		m.Stages[1].AfterStageWaitInSeconds.ValueInt64() != 600 || m.Stages[1].BeforeGates[0].DisplayName.ValueString() != "go" ||
		m.Stages[1].Groups[0].MaxConcurrency.ValueString() != "50%" {
		t.Errorf("stage blocks %+v", m.Stages)
	}
	if len(m.Approvals) != 2 || m.Approvals[0].Group.ValueString() != "canary" || !m.Approvals[1].Group.IsNull() || m.Approvals[1].Timing.ValueString() != "Before" {
		t.Errorf("approval blocks %+v", m.Approvals)
	}
	if len(m.Skip) != 1 || m.Skip[0].Name.ValueString() != "c2" {
		t.Errorf("skip %+v", m.Skip)
	}
	if u := m.ManagedClusterUpdate; u == nil || u.Upgrade == nil || u.Upgrade.KubernetesVersion.ValueString() != "1.33.1" || u.NodeImageSelection.Type.ValueString() != "Consistent" {
		t.Errorf("managed_cluster_update %+v", u)
	}
	if m.State.ValueString() != "Running" || m.WaitFor.ValueString() != "none" {
		t.Errorf("state %s, wait_for %s", m.State, m.WaitFor)
	}
	if got := attrAt(t, raw, "preview", "stages", 0, "groups", 0, "members", 0, "name"); !got.Equal(tftypes.NewValue(tftypes.String, "c1")) {
		t.Errorf("preview.stages[0].groups[0].members[0].name %s", got)
	}
	if got := attrAt(t, raw, "status", "stages", 0, "groups", 0, "state"); !got.Equal(tftypes.NewValue(tftypes.String, "Running")) {
		t.Errorf("status.stages[0].groups[0].state %s", got)
	}
}
