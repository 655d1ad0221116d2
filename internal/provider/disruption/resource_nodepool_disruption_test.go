package disruption

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/provider/sharedtest"
)

// ValidateConfig reports each finding at its attribute path, with the right severity, offline.
func TestNodePoolDisruptionValidateConfig(t *testing.T) {
	ctx := context.Background()
	budget := func(nodes, schedule, duration string, reasons ...string) npBudgetModel {
		b := npBudgetModel{Nodes: types.StringValue(nodes), Schedule: types.StringNull(), Duration: npDurationNull(), Reasons: types.ListNull(types.StringType)}
		if schedule != "" {
			b.Schedule = types.StringValue(schedule)
		}
		if duration != "" {
			b.Duration = npDurationOf(duration)
		}
		if reasons != nil {
			b.Reasons, _ = types.ListValueFrom(ctx, types.StringType, reasons)
		}
		return b
	}
	validateModel := sharedtest.ConfigValidator[nodePoolDisruptionModel](t, &nodePoolDisruptionResource{})
	validate := func(t *testing.T, m nodePoolDisruptionModel) diag.Diagnostics {
		t.Helper()
		m.Cluster, m.NodePool = types.StringValue("canary-east"), types.StringValue("default")
		m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "read": types.StringType, "update": types.StringType, "delete": types.StringType,
		})}
		return validateModel(t, m)
	}
	type finding struct {
		path     string
		severity diag.Severity
		text     string
	}
	budgets := func(bs ...npBudgetModel) types.List {
		bs = append([]npBudgetModel{}, bs...) // never nil: budgets() is [], not null
		l, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: npBudgetAttrTypes}, bs)
		if d.HasError() {
			t.Fatal(d)
		}
		return l
	}
	cases := []struct {
		name  string
		model func(m *nodePoolDisruptionModel)
		want  []finding
	}{
		{
			name: "valid",
			model: func(m *nodePoolDisruptionModel) {
				m.ConsolidationPolicy, m.ConsolidateAfter, m.ExpireAfter = types.StringValue("Balanced"), npDurationOf("Never"), npDurationOf("720h")
				m.TerminationGracePeriod = npDurationOf("1h30m")
				m.Budgets = budgets(budget("0", "0 9 * * 1-5", "8h", "Drifted", "Unhealthy"), budget("20%", "", ""))
			},
		},
		{
			name: "budget fields",
			model: func(m *nodePoolDisruptionModel) {
				m.Budgets = budgets(
					budget("150%", "", ""),
					budget("1", "0 9 * * sat-sun", "0m"),
					budget("1", "@daily", ""),
					budget("1", "0 9 * * 7", "90s", "Drift", "Empty", "Empty"),
					budget("1", "0 0 30 2 *", "1h", []string{}...),
				)
			},
			want: []finding{
				{"budget[0].nodes", diag.SeverityError, "percentage from 0% to 100%"},
				{"budget[1].schedule", diag.SeverityWarning, "ranges cannot wrap around"},
				{"budget[1].duration", diag.SeverityWarning, "zero duration"},
				{"budget[2]", diag.SeverityError, "'schedule' must be set with 'duration'"},
				{"budget[3].schedule", diag.SeverityWarning, "write 0 for Sunday"},
				{"budget[3].duration", diag.SeverityError, "hours and/or minutes"},
				{"budget[3].reasons", diag.SeverityError, `unsupported value "Drift"`},
				{"budget[3].reasons", diag.SeverityError, `duplicate value "Empty"`},
				{"budget[4].schedule", diag.SeverityWarning, "never fires"},
				{"budget[4].reasons", diag.SeverityWarning, "apply to no reason"},
			},
		},
		{
			name: "six fields and time zones",
			model: func(m *nodePoolDisruptionModel) {
				m.Budgets = budgets(budget("1", "0 0 9 * * 1-5", "1h"), budget("1", "CRON_TZ=Europe/Paris 0 9 * * *", "1h"))
			},
			want: []finding{
				{"budget[0].schedule", diag.SeverityWarning, "exactly five fields"},
				{"budget[1].schedule", diag.SeverityWarning, "time zones are not supported"},
			},
		},
		{
			name: "durations and policy",
			model: func(m *nodePoolDisruptionModel) {
				m.ConsolidationPolicy, m.ConsolidateAfter = types.StringValue("WhenUnderutilized"), npDurationOf("1.5h")
				m.ExpireAfter, m.TerminationGracePeriod = npDurationOf("30d"), npDurationOf("Never")
			},
			want: []finding{
				{"consolidation_policy", diag.SeverityError, `unsupported value "WhenUnderutilized"`},
				{"consolidate_after", diag.SeverityError, "must be a duration"},
				{"expire_after", diag.SeverityError, "must be a duration"},
				{"termination_grace_period", diag.SeverityError, "must be a duration"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := npNullModel()
			tc.model(&m)
			diags := validate(t, m)
			var got []finding
			for _, d := range diags {
				wd, ok := d.(diag.DiagnosticWithPath)
				if !ok {
					t.Errorf("diagnostic without a path: %s: %s", d.Summary(), d.Detail())
					continue
				}
				got = append(got, finding{wd.Path().String(), d.Severity(), d.Detail()})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.path != w.path || g.severity != w.severity || !regexp.MustCompile(regexp.QuoteMeta(w.text)).MatchString(g.text) {
					t.Errorf("diagnostic %d = %s %v %q, want %s %v containing %q", i, g.path, g.severity, g.text, w.path, w.severity, w.text)
				}
			}
		})
	}
}
