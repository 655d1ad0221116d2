package override

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

const (
	nsApp  = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"app","labels":{"team":"a"}}}`
	cmApp  = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"app"},"data":{"k":"v"}}`
	deploy = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"app"},"spec":{"replicas":1}}`
)

func op(o, p, v string) placementv1beta1.JSONPatchOverride {
	j := placementv1beta1.JSONPatchOverride{Operator: placementv1beta1.JSONPatchOverrideOperator(o), Path: p}
	if v != "" {
		j.Value = apiextensionsv1.JSON{Raw: []byte(v)}
	}
	return j
}

func sel(kv ...string) *placementv1beta1.ClusterSelector {
	if len(kv) == 0 {
		return &placementv1beta1.ClusterSelector{}
	}
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{LabelSelector: &metav1.LabelSelector{MatchLabels: m}}}}
}

func cro(name string, target placementv1beta1.ResourceSelectorTerm, rules ...placementv1beta1.OverrideRule) Override {
	return Override{Name: name, Snapshot: SnapshotName(name, 0), Spec: placementv1beta1.ClusterResourceOverrideSpec{
		Placement:                &placementv1beta1.PlacementRef{Name: "crp"},
		ClusterResourceSelectors: []placementv1beta1.ResourceSelectorTerm{target},
		Policy:                   &placementv1beta1.OverridePolicy{OverrideRules: rules},
	}}
}

func ro(name string, target placementv1beta1.ResourceSelector, rules ...placementv1beta1.OverrideRule) Override {
	return Override{Namespace: "app", Name: name, Snapshot: SnapshotName(name, 0), ResourceSelectors: []placementv1beta1.ResourceSelector{target},
		Spec: placementv1beta1.ClusterResourceOverrideSpec{
			Placement: &placementv1beta1.PlacementRef{Name: "crp", Scope: placementv1beta1.ClusterScoped},
			Policy:    &placementv1beta1.OverridePolicy{OverrideRules: rules},
		}}
}

var nsTarget = placementv1beta1.ResourceSelectorTerm{Version: "v1", Kind: "Namespace", Name: "app"}
var deployTarget = placementv1beta1.ResourceSelector{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}

func patch(s *placementv1beta1.ClusterSelector, ops ...placementv1beta1.JSONPatchOverride) placementv1beta1.OverrideRule {
	return placementv1beta1.OverrideRule{ClusterSelector: s, OverrideType: placementv1beta1.JSONPatchOverrideType, JSONPatchOverrides: ops}
}

func render(t *testing.T, raw string, c Cluster, os ...Override) (string, bool, error) {
	t.Helper()
	cros, ros, err := Matching("crp", [][]byte{[]byte(nsApp), []byte(cmApp), []byte(deploy)}, os)
	if err != nil {
		t.Fatal(err)
	}
	pc, pr, err := ForCluster(c, cros, ros)
	if err != nil {
		t.Fatal(err)
	}
	out, del, err := Render([]byte(raw), c, pc, pr)
	return string(Canonical(out)), del, err
}

func TestRenderVariablesAndScopes(t *testing.T) {
	east := Cluster{Name: "m-1", Labels: map[string]string{"env": "prod", "region": "eastus"}}
	o := cro("served", nsTarget, patch(sel("env", "prod"),
		op("add", "/metadata/labels/served-by", `"${MEMBER-CLUSTER-NAME}"`),
		op("add", "/metadata/labels/region", `"r-${MEMBER-CLUSTER-LABEL-KEY-region}"`)))
	got, _, err := render(t, nsApp, east, o)
	if err != nil || got != `{"apiVersion":"v1","kind":"Namespace","metadata":{"labels":{"region":"r-eastus","served-by":"m-1","team":"a"},"name":"app"}}` {
		t.Fatalf("namespace: %s, %v", got, err)
	}
	// A ClusterResourceOverride of the namespace applies to what is in it too (applyOverrides' key):
	// the config map has no labels, so the add fails as jsonpatch v5 says.
	_, _, err = render(t, cmApp, east, o)
	if err == nil || !strings.Contains(err.Error(), `failed to apply on ConfigMap "cfg" in namespace "app": add operation does not apply: doc is missing path: "/metadata/labels/served-by"`) {
		t.Fatalf("config map: %v", err)
	}
	// A member without the label: v0.18.9's error, wrapped as the work generator wraps it.
	_, _, err = render(t, nsApp, Cluster{Name: "m-2", Labels: map[string]string{"env": "prod"}}, o)
	if err == nil || err.Error() != `ClusterResourceOverrideSnapshot "served-0" failed to apply on Namespace "app": label key region not found on cluster m-2` {
		t.Fatalf("missing label: %v", err)
	}
	// Not selected: unchanged.
	got, _, err = render(t, nsApp, Cluster{Name: "m-3", Labels: map[string]string{"env": "dev"}}, o)
	if err != nil || got != string(Canonical([]byte(nsApp))) {
		t.Fatalf("unselected: %s, %v", got, err)
	}
}

func TestRenderOrderDeleteAndFailures(t *testing.T) {
	c := Cluster{Name: "m-1", Labels: map[string]string{"env": "prod"}}
	a := cro("a", nsTarget, patch(sel(), op("replace", "/spec/replicas", "3")))
	b := ro("b", deployTarget, patch(sel("env", "prod"), op("replace", "/spec/replicas", "5")))
	got, _, err := render(t, deploy, c, b, a)
	if err != nil || !strings.Contains(got, `"replicas":5`) {
		t.Fatalf("the ResourceOverride applies after the ClusterResourceOverride: %s, %v", got, err)
	}
	del := ro("d", deployTarget, placementv1beta1.OverrideRule{ClusterSelector: sel("env", "prod"), OverrideType: placementv1beta1.DeleteOverrideType})
	if _, deleted, err := render(t, deploy, c, del); err != nil || !deleted {
		t.Fatalf("delete: %v %v", deleted, err)
	}
	bad := ro("bad", deployTarget, patch(sel(), op("replace", "/spec/missing", "1")))
	_, _, err = render(t, deploy, c, bad)
	if err == nil || !strings.HasPrefix(err.Error(), `ResourceOverrideSnapshot "bad-0" failed to apply on Deployment "web" in namespace "app": `) {
		t.Fatalf("failing patch: %v", err)
	}
	other := a
	other.Spec.Placement = &placementv1beta1.PlacementRef{Name: "other"}
	got, _, _ = render(t, deploy, c, other)
	if strings.Contains(got, `"replicas":3`) {
		t.Fatalf("an override of another placement applied: %s", got)
	}
}

func TestPreviewGroups(t *testing.T) {
	var clusters []Cluster
	for i, env := range []string{"prod", "prod", "dev", "prod", "test"} {
		clusters = append(clusters, Cluster{Name: "m-" + string(rune('1'+i)), Labels: map[string]string{"env": env}})
	}
	o := ro("r", deployTarget,
		patch(sel("env", "prod"), op("replace", "/spec/replicas", "3")),
		placementv1beta1.OverrideRule{ClusterSelector: sel("env", "test"), OverrideType: placementv1beta1.DeleteOverrideType})
	res, err := Preview("crp", [][]byte{[]byte(nsApp), []byte(deploy)}, clusters, []Override{o}, func(raw []byte) bool { return Selects(o, raw) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Groups) != 3 {
		t.Fatalf("want 1 resource in 3 groups: %+v", res)
	}
	g := res[0].Groups
	if g[0].Outcome != Patched || len(g[0].Clusters) != 3 || len(g[0].Patch) != 1 || g[0].Patch[0].Path != "/spec/replicas" ||
		g[1].Outcome != Unchanged || g[1].Clusters[0] != "m-3" || g[2].Outcome != Deleted || g[2].Clusters[0] != "m-5" {
		t.Fatalf("groups: %+v", g)
	}
}

func TestValidatePaths(t *testing.T) {
	base := func() Override {
		return cro("x", nsTarget, patch(sel("env", "prod"), op("add", "/metadata/labels/a", `"b"`)))
	}
	for name, tc := range map[string]struct {
		mutate func(*Override)
		where  Where
		want   string
	}{
		"status":           {func(o *Override) { o.Spec.Policy.OverrideRules[0].JSONPatchOverrides[0].Path = "/status/x" }, Where{-1, 0, 0}, "cannot override status fields"},
		"metadata name":    {func(o *Override) { o.Spec.Policy.OverrideRules[0].JSONPatchOverrides[0].Path = "/metadata/name" }, Where{-1, 0, 0}, "cannot override metadata fields except annotations and labels"},
		"kind":             {func(o *Override) { o.Spec.Policy.OverrideRules[0].JSONPatchOverrides[0].Path = "/kind" }, Where{-1, 0, 0}, "cannot override typeMeta fields"},
		"remove and value": {func(o *Override) { o.Spec.Policy.OverrideRules[0].JSONPatchOverrides[0].Operator = "remove" }, Where{-1, 0, 0}, "remove operation cannot have value"},
		"delete and patch": {func(o *Override) { o.Spec.Policy.OverrideRules[0].OverrideType = placementv1beta1.DeleteOverrideType }, Where{-1, 0, -1}, "JSONPatchOverrides cannot be set when the override type is Delete"},
		"property selector": {func(o *Override) {
			o.Spec.Policy.OverrideRules[0].ClusterSelector.ClusterSelectorTerms[0].PropertySelector = &placementv1beta1.PropertySelector{}
		}, Where{-1, 0, -1}, "only labelSelector is supported"},
		"label selector on resources": {func(o *Override) {
			o.Spec.ClusterResourceSelectors[0].LabelSelector = &metav1.LabelSelector{}
		}, Where{0, -1, -1}, "label selector is not supported for resource selection"},
		"namespaced placement": {func(o *Override) { o.Spec.Placement.Scope = placementv1beta1.NamespaceScoped }, Where{-1, -1, -1}, "cannot be Namespaced scope"},
	} {
		t.Run(name, func(t *testing.T) {
			o := base()
			tc.mutate(&o)
			issues := Validate(o, nil)
			for _, is := range issues {
				if is.Where == tc.where && strings.Contains(is.Message, tc.want) {
					return
				}
			}
			t.Fatalf("want %q at %+v, got %+v", tc.want, tc.where, issues)
		})
	}
	if issues := Validate(base(), nil); len(issues) != 0 {
		t.Fatalf("a valid override: %+v", issues)
	}
	// Another ClusterResourceOverride of the same namespace.
	other := base()
	other.Name = "y"
	if issues := Validate(base(), []Override{other}); len(issues) != 1 || !strings.Contains(issues[0].Message, "the resource has been selected by both x and y") {
		t.Fatalf("one override per resource: %+v", issues)
	}
}
