package disruption

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzValidators feeds user strings to the budget, schedule and duration checks: no panic, and a
// value the CRD's pattern rejects is always an error, and a schedule Karpenter cannot parse is at
// least a warning (the API server accepts it): a rejection is a diagnostic, never silence.
func FuzzValidators(f *testing.F) {
	for _, s := range []string{"10%", "5", "-5%", "101%", "99999999999999999999", "0 9 * * 1-5", "@daily", "TZ=Europe/Paris 0 9 * * *",
		"*/0 * * * *", "1h30m", "1h0s", "Never", "30s", "1d", "", " ", "%", "WhenEmpty", "60-1 * * * *"} {
		f.Add(s)
	}
	nodes := regexp.MustCompile(NodesPattern)
	dur := regexp.MustCompile(BudgetDurationPattern)
	nillable := regexp.MustCompile(NillableDurationPattern)
	f.Fuzz(func(t *testing.T, s string) {
		if d := ValidateNodes(s); !nodes.MatchString(s) && !d.HasErrors() {
			t.Fatalf("ValidateNodes(%q) accepted a value the CRD rejects", s)
		}
		if d := ValidateBudgetDuration(s); !dur.MatchString(s) && !d.HasErrors() {
			t.Fatalf("ValidateBudgetDuration(%q) accepted a value the CRD rejects", s)
		}
		for name, v := range map[string]func(string) Diagnostics{"ConsolidateAfter": ValidateConsolidateAfter, "ExpireAfter": ValidateExpireAfter} {
			if d := v(s); !nillable.MatchString(s) && !d.HasErrors() {
				t.Fatalf("Validate%s(%q) accepted a value the CRD rejects", name, s)
			}
		}
		_ = ValidateTerminationGracePeriod(s)
		_ = ValidateConsolidationPolicy(s)
		_ = ValidateReasons(strings.Split(s, ","))
		d := ValidateSchedule(s)
		if _, err := ParseSchedule(s); err != nil && len(d.Errors)+len(d.Warnings) == 0 {
			t.Fatalf("ValidateSchedule(%q) says nothing of a schedule Karpenter cannot parse: %v", s, err)
		}
		for _, m := range append(d.Errors, d.Warnings...) {
			if strings.TrimSpace(m) == "" {
				t.Fatalf("ValidateSchedule(%q): empty diagnostic", s)
			}
		}
	})
}
