package emulator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// oracleRulesFile is the registry of documented rules; the other files of testdata/oracle are traces.
const oracleRulesFile = "rules.yaml"

// documentedRulesDoc is the docs' table of the rules and their traces, rendered from the registry.
const documentedRulesDoc = "../../../templates/guides/documented-rules.md.tmpl"

type oracleRule struct {
	ID        string `json:"id"`
	Area      string `json:"area"`
	Source    string `json:"source"`
	Quote     string `json:"quote"`
	Check     string `json:"check"` // oracle | elsewhere | not implemented
	Elsewhere string `json:"elsewhere,omitempty"`
	Why       string `json:"why,omitempty"`
}

// TestOracleRules holds the oracle to every rule of Microsoft's update-run, auto-upgrade and
// update-strategy documentation (issue #22 item 8): each rule of testdata/oracle/rules.yaml that the
// oracle checks has at least one trace (TestOracleTraces runs them), every trace names the rules it
// checks with the rule's quote copied verbatim beside it, rules checked elsewhere name their test, and
// rules the engine does not implement say why. The docs' table (templates/guides/documented-rules.md.tmpl)
// is rendered from the same files and must be current: ORACLE_WRITE_DOCS=1 rewrites it.
func TestOracleRules(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata/oracle", oracleRulesFile))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		Rules []oracleRule `json:"rules"`
	}
	if err := yaml.UnmarshalStrict(b, &reg); err != nil {
		t.Fatal(err)
	}
	byID := map[string]oracleRule{}
	for _, r := range reg.Rules {
		if _, dup := byID[r.ID]; dup {
			t.Errorf("rule %s listed twice", r.ID)
		}
		byID[r.ID] = r
		switch {
		case r.Quote == "" || r.Source == "" || r.Area == "":
			t.Errorf("rule %s: quote, source and area are required", r.ID)
		case r.Check == "elsewhere" && r.Elsewhere == "":
			t.Errorf("rule %s: checked elsewhere names no test", r.ID)
		case r.Check == "not implemented" && r.Why == "":
			t.Errorf("rule %s: not implemented says not why", r.ID)
		case r.Check != "oracle" && r.Check != "elsewhere" && r.Check != "not implemented":
			t.Errorf("rule %s: check %q", r.ID, r.Check)
		}
	}
	traces := map[string][]string{} // rule → "file: trace"
	steps := map[string]int{}
	files, _ := filepath.Glob("testdata/oracle/*.yaml")
	nTraces := 0
	for _, file := range files {
		if filepath.Base(file) == oracleRulesFile {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Traces []oracleTrace `json:"traces"`
		}
		if err := yaml.UnmarshalStrict(b, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, tr := range doc.Traces {
			nTraces++
			where := filepath.Base(file) + ": " + tr.Name
			if len(tr.Rules) == 0 {
				t.Errorf("%s checks no rule of %s", where, oracleRulesFile)
			}
			for _, ref := range tr.Rules {
				r, ok := byID[ref.ID]
				switch {
				case !ok:
					t.Errorf("%s: unknown rule %q", where, ref.ID)
				case ref.Quote != r.Quote:
					t.Errorf("%s: the quote beside rule %s is not the registry's verbatim:\n  %q\n  %q", where, ref.ID, ref.Quote, r.Quote)
				case r.Check != "oracle":
					t.Errorf("%s: rule %s is %q in the registry, yet a trace checks it", where, ref.ID, r.Check)
				}
				traces[ref.ID] = append(traces[ref.ID], where)
				steps[ref.ID] += len(tr.Steps)
			}
		}
	}
	counts := map[string]int{}
	for _, r := range reg.Rules {
		counts[r.Check]++
		if r.Check == "oracle" && len(traces[r.ID]) == 0 {
			t.Errorf("rule %s (%s) has no trace", r.ID, r.Source)
		}
	}
	t.Logf("documented rules: %d (%d checked by %d oracle traces, %d elsewhere, %d not implemented)",
		len(reg.Rules), counts["oracle"], nTraces, counts["elsewhere"], counts["not implemented"])

	got := renderDocumentedRules(reg.Rules, traces, steps, nTraces, counts)
	if os.Getenv("ORACLE_WRITE_DOCS") != "" {
		if err := os.WriteFile(documentedRulesDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(documentedRulesDoc)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s is not the table of %s and its traces: run ORACLE_WRITE_DOCS=1 go test -run TestOracleRules ./internal/localfleet/emulator/ and make docs", documentedRulesDoc, oracleRulesFile)
	}
}

// renderDocumentedRules is the guide's page: one table row per rule, grouped by area.
func renderDocumentedRules(rules []oracleRule, traces map[string][]string, steps map[string]int, nTraces int, counts map[string]int) string {
	var b strings.Builder
	b.WriteString(`---
page_title: "Documented rules and the traces that check them"
subcategory: "Guides"
description: |-
  Every rule of Microsoft's update-run, auto-upgrade and update-strategy documentation, quoted, with the hand-written oracle trace that checks it, or why none does.
---

# Documented rules and the traces that check them

{{/* Generated by TestOracleRules (internal/localfleet/emulator) from testdata/oracle/rules.yaml and its traces: do not edit. */}}

The update-run and auto-upgrade previews come from one engine of rules, which the local fleet's Fleet API
also runs to execute runs. So that the engine is held to Microsoft's documentation and not to itself, each rule
the documentation states is written down below with its quote, and hand-written traces (a small fleet, a run or
an auto-upgrade profile, steps and the states expected after each, read over HTTP) check it; the project's test
suite runs them on every change and fails on any mismatch. The expected states were written from the quotes,
not from the engine.

Sources: fleets.json is the official Fleet API spec, stable 2026-06-01, and preview fleets.json its
2026-11-01-preview, whose rules' traces create and read their runs at that api-version; the ` + "`.md`" + ` pages are
MicrosoftDocs/azure-aks-docs ` + "`articles/kubernetes-fleet`" + ` (2026-08-21); "issue 36" is the project's issue quoting
the article's "Maximum allowed failures (preview)"; "project notes" are the project's summary of the preview API
versions, quoted for rules only they state.

`)
	fmt.Fprintf(&b, "**%d rules**: %d checked by the oracle's %d traces (compared with the local fleet's execution of the Fleet API over HTTP: **0 mismatches**), "+
		"%d checked by another named test, %d not implemented (listed, not hidden).\n", len(rules), counts["oracle"], nTraces, counts["elsewhere"], counts["not implemented"])
	areas := []string{}
	seen := map[string]bool{}
	for _, r := range rules {
		if !seen[r.Area] {
			seen[r.Area] = true
			areas = append(areas, r.Area)
		}
	}
	for _, area := range areas {
		fmt.Fprintf(&b, "\n## %s\n\n| rule | quote | source | checked by |\n|---|---|---|---|\n", strings.ToUpper(area[:1])+area[1:])
		for _, r := range rules {
			if r.Area != area {
				continue
			}
			var by string
			switch r.Check {
			case "oracle":
				ts := append([]string(nil), traces[r.ID]...)
				sort.Strings(ts)
				by = fmt.Sprintf("%d trace(s), %d steps: %s", len(ts), steps[r.ID], strings.Join(ts, "; "))
			case "elsewhere":
				by = "not a trace: " + internalPath.ReplaceAllString(r.Elsewhere, "")
			default:
				by = "**not implemented**: " + r.Why
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.ID, cell("“"+r.Quote+"”"), cell(r.Source), cell(by))
		}
	}
	return b.String()
}

// cell is s as one table cell: a quote's line breaks (the spec's descriptions wrap) become spaces.
func cell(s string) string {
	return strings.ReplaceAll(lineBreak.ReplaceAllString(s, " "), "|", `\|`)
}

var lineBreak = regexp.MustCompile(`[ \t]*\n[ \t]*`)

// internalPath is a test's package path and name ("internal/engine/channel TestX: "), which a
// registry page does not name (the rules file keeps them): what follows says what checks the rule.
var internalPath = regexp.MustCompile(`(internal/[a-z/]+ )?Test[A-Za-z_]+:? ?`)
