package override

import (
	"bytes"
	"encoding/json"
	"sort"

	"gomodules.xyz/jsonpatch/v2"
)

// Outcome of one resource on one cluster.
const (
	Unchanged = "unchanged" // no override applies: the Work gets the resource as the hub has it
	Patched   = "patched"
	Deleted   = "deleted" // a Delete rule: the resource is left out of the cluster's Work
	Failed    = "failed"  // the hub agent refuses the whole Work of the cluster with Error
)

// Group is the clusters on which one resource renders the same.
type Group struct {
	Outcome string
	// Patch is the JSON patch from the hub's resource to the rendered one (RFC 6902, computed on
	// the rendered result, not the override's operations), for Patched.
	Patch []jsonpatch.Operation
	// Manifest is the rendered resource (Patched, Unchanged).
	Manifest []byte
	Error    string // Failed: v0.18.9's words
	Clusters []string
}

// ResourcePreview is one resource of the placement and what each cluster gets of it.
type ResourcePreview struct {
	Target   string // `Deployment "web" in namespace "app"`
	Original []byte
	Groups   []Group // largest first, then by outcome and first cluster
	// Overrides names the override snapshots that touch the resource on at least one cluster.
	Overrides []string
}

// Preview renders every resource of the placement that one of the overrides selects, on each of
// clusters (the placement's selection), with every override bound to the placement (the
// hub's others and the ones planned), grouped by distinct result. selects limits the resources to
// those the override being planned selects ("" namespace and name: all).
func Preview(placementKey string, resources [][]byte, clusters []Cluster, overrides []Override, only func(raw []byte) bool) ([]ResourcePreview, error) {
	cros, ros, err := Matching(placementKey, resources, overrides)
	if err != nil {
		return nil, err
	}
	type picked struct{ cros, ros []Override }
	per := make([]picked, len(clusters))
	for i, c := range clusters {
		pc, pr, err := ForCluster(c, cros, ros)
		if err != nil {
			return nil, err
		}
		per[i] = picked{pc, pr}
	}
	var out []ResourcePreview
	for _, raw := range resources {
		if only != nil && !only(raw) {
			continue
		}
		rp := ResourcePreview{Target: Target(raw), Original: raw}
		byKey := map[string]int{}
		touched := map[string]bool{}
		for i, c := range clusters {
			rendered, deleted, err := Render(raw, c, per[i].cros, per[i].ros)
			rendered = Canonical(rendered)
			g := Group{Outcome: Unchanged, Manifest: rendered}
			switch {
			case err != nil:
				g = Group{Outcome: Failed, Error: err.Error()}
			case deleted:
				g = Group{Outcome: Deleted}
			case !bytes.Equal(rendered, Canonical(raw)):
				g.Outcome = Patched
			}
			for _, o := range append(append([]Override{}, per[i].cros...), per[i].ros...) {
				if selectsResource(o, raw) {
					touched[o.Snapshot] = true
				}
			}
			key := g.Outcome + "\x00" + g.Error + "\x00" + string(g.Manifest)
			if j, ok := byKey[key]; ok {
				rp.Groups[j].Clusters = append(rp.Groups[j].Clusters, c.Name)
				continue
			}
			if g.Outcome == Patched {
				if g.Patch, err = jsonpatch.CreatePatch(Canonical(raw), rendered); err != nil {
					return nil, err
				}
				sort.SliceStable(g.Patch, func(a, b int) bool { return g.Patch[a].Path < g.Patch[b].Path })
			}
			g.Clusters = []string{c.Name}
			byKey[key] = len(rp.Groups)
			rp.Groups = append(rp.Groups, g)
		}
		for _, g := range rp.Groups {
			sort.Strings(g.Clusters)
		}
		sort.SliceStable(rp.Groups, func(a, b int) bool {
			ga, gb := rp.Groups[a], rp.Groups[b]
			if len(ga.Clusters) != len(gb.Clusters) {
				return len(ga.Clusters) > len(gb.Clusters)
			}
			return ga.Clusters[0] < gb.Clusters[0]
		})
		for s := range touched {
			rp.Overrides = append(rp.Overrides, s)
		}
		sort.Strings(rp.Overrides)
		out = append(out, rp)
	}
	return out, nil
}

// Selects reports whether o selects raw: a ClusterResourceOverride names it or its namespace, a
// ResourceOverride names it.
func Selects(o Override, raw []byte) bool { return selectsResource(o, raw) }

func selectsResource(o Override, raw []byte) bool {
	id, err := identityOf(raw)
	if err != nil {
		return false
	}
	if o.Namespace == "" {
		return selects(o.croKeys(), id.croKey())
	}
	return id.namespace != "" && selects(o.roKeys(), id.roKey())
}

// canonical is raw with its keys sorted, so equal objects compare equal.
func canonical(raw []byte) []byte {
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// Canonical is a manifest normalised for comparison: keys sorted, insignificant space dropped,
// and empty metadata.labels and metadata.annotations left out, as the hub's API server stores a
// Work's manifests (embedded objects' metadata is coerced to ObjectMeta, whose maps are omitempty:
// a patch that removes an object's last label leaves no labels map in the Work).
func Canonical(raw []byte) []byte {
	if raw == nil {
		return nil
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return canonical(raw)
	}
	if md, ok := v["metadata"].(map[string]any); ok {
		for _, k := range []string{"labels", "annotations"} {
			if m, ok := md[k].(map[string]any); ok && len(m) == 0 {
				delete(md, k)
			}
		}
	}
	b, _ := json.Marshal(v)
	return b
}
