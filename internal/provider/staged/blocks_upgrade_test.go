package staged

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestUpgradeStagedUpdateStrategyToBlocks(t *testing.T) {
	// fleet_staged_update_strategy's state as the nested-attribute provider wrote it (schema
	// version 0), with its computed preview, whose `stages` keep their name.
	v0 := `{
  "id": "rings",
  "name": "rings",
  "namespace": null,
  "stages": [
    {"name": "canary",
     "label_selector": {"match_labels": {"env": "canary"}, "match_expressions": [{"key": "tier", "operator": "NotIn", "values": ["gold"]}]},
     "sorting_label_key": null, "max_concurrency": null,
     "before_stage_tasks": [{"type": "Approval"}],
     "after_stage_tasks": [{"type": "TimedWait", "wait_time": "90m"}, {"type": "Approval", "wait_time": null}]},
    {"name": "rest", "label_selector": {"match_labels": null, "match_expressions": null}, "sorting_label_key": "rollout-order",
     "max_concurrency": "25%", "before_stage_tasks": null, "after_stage_tasks": null}
  ],
  "timeouts": null,
  "facts": null,
  "preview": {
    "member_count": 3,
    "stages": [{"name": "canary", "cluster_count": 1, "clusters": ["c1"]}, {"name": "rest", "cluster_count": 2, "clusters": ["p1", "p2"]}],
    "unstaged_count": 0, "unstaged": null, "unstaged_omitted": 0, "problem": null
  }
}`
	ctx := context.Background()
	// The upgrader Terraform's UpgradeResourceState runs (the framework calls it with the raw state
	// alone: it has no prior schema).
	res := &stagedStrategyResource{}
	var uresp resource.UpgradeStateResponse
	res.UpgradeState(ctx)[0].StateUpgrader(ctx, resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: []byte(v0)}}, &uresp)
	if uresp.Diagnostics.HasError() || uresp.DynamicValue == nil {
		t.Fatalf("upgrade: %v", uresp.Diagnostics)
	}
	var sresp resource.SchemaResponse
	res.Schema(ctx, resource.SchemaRequest{}, &sresp)
	if sresp.Schema.Version != 1 {
		t.Errorf("schema version %d, want 1", sresp.Schema.Version)
	}
	raw, err := uresp.DynamicValue.Unmarshal(sresp.Schema.Type().TerraformType(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var m stagedStrategyModel
	if d := (tfsdk.State{Schema: sresp.Schema, Raw: raw}).Get(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	if len(m.Stages) != 2 {
		t.Fatalf("stage blocks %+v", m.Stages)
	}
	c, r := m.Stages[0], m.Stages[1]
	if c.LabelSelector == nil || c.LabelSelector.MatchLabels["env"] != "canary" || len(c.LabelSelector.MatchExpressions) != 1 ||
		c.LabelSelector.MatchExpressions[0].Values[0] != "gold" || len(c.BeforeStageTasks) != 1 ||
		len(c.AfterStageTasks) != 2 || c.AfterStageTasks[0].WaitTime.ValueString() != "90m" || !c.AfterStageTasks[1].WaitTime.IsNull() {
		t.Errorf("stage canary %+v", c)
	}
	// An empty selector (configured as `label_selector {}` now) stays an empty object, not null.
	if r.LabelSelector == nil || len(r.LabelSelector.MatchLabels) != 0 || r.SortingLabelKey.ValueString() != "rollout-order" || r.MaxConcurrency.ValueString() != "25%" ||
		len(r.BeforeStageTasks) != 0 || len(r.AfterStageTasks) != 0 {
		t.Errorf("stage rest %+v", r)
	}
	got, _, err := tftypes.WalkAttributePath(raw, tftypes.NewAttributePath().WithAttributeName("preview").WithAttributeName("stages").WithElementKeyInt(1).WithAttributeName("cluster_count"))
	if err != nil || !got.(tftypes.Value).Equal(tftypes.NewValue(tftypes.Number, 2)) {
		t.Errorf("preview.stages[1].cluster_count %v (%v)", got, err)
	}
}
