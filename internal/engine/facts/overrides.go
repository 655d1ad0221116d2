package facts

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// SelectedResources are what the override previews of a placement read of it: the resources of its
// latest resource snapshot, in the order the work generator reads them (hub.Client.
// LatestSelectedResources). Its bindings and the member clusters' labels are in the facts'
// Placements and Hub; the override snapshots of the namespaces involved in OverrideSnapshots.
type SelectedResources struct {
	Namespace string `json:"namespace,omitempty"`
	Placement string `json:"placement"`
	// Index is the latest resource snapshot's index, "" before the hub agent cut one.
	Index     string            `json:"index,omitempty"`
	Resources []json.RawMessage `json:"resources,omitempty"`
}

// OverrideSnapshots are the latest override snapshots of one namespace ("": the
// ClusterResourceOverrides), as hub.Client.LatestOverrideSnapshots lists them.
type OverrideSnapshots struct {
	Namespace string                 `json:"namespace,omitempty"`
	Snapshots []hub.OverrideSnapshot `json:"snapshots,omitempty"`
}

func (o SelectedResources) Key() hub.PlacementKey {
	return hub.PlacementKey{Namespace: o.Namespace, Name: o.Placement}
}

// ResourceNamespaces are the namespaces of the raw resources, sorted, without "".
func ResourceNamespaces(resources [][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, raw := range resources {
		var o struct {
			Metadata struct{ Namespace string } `json:"metadata"`
		}
		if json.Unmarshal(raw, &o) == nil && o.Metadata.Namespace != "" && !seen[o.Metadata.Namespace] {
			seen[o.Metadata.Namespace] = true
			out = append(out, o.Metadata.Namespace)
		}
	}
	sort.Strings(out)
	return out
}

// movedResources says which placement's latest resource snapshot moved.
func movedResources(planned, now []SelectedResources) []string {
	return pairUp(planned, now, func(o SelectedResources) string { return o.Key().String() }, "resources of placement", "the facts",
		func(name string, b, a SelectedResources) []string {
			if b.Index == a.Index && len(b.Resources) == len(a.Resources) {
				return nil
			}
			return []string{fmt.Sprintf("placement %s: latest resource snapshot %s (%d resources) → %s (%d resources)",
				name, orNone(b.Index), len(b.Resources), orNone(a.Index), len(a.Resources))}
		})
}

// movedOverrideSnapshots says, per namespace, which overrides' latest snapshot appeared, went or changed.
func movedOverrideSnapshots(planned, now []OverrideSnapshots) []string {
	return pairUp(planned, now, func(s OverrideSnapshots) string { return s.Namespace }, "override snapshots of namespace", "the facts",
		func(ns string, b, a OverrideSnapshots) []string {
			names := func(s OverrideSnapshots) map[string]string {
				m := map[string]string{}
				for _, o := range s.Snapshots {
					m[hub.Key(o.Namespace, o.Override)] = o.Name
				}
				return m
			}
			if d := mapDiff(names(b), names(a)); d != "" {
				what := "ClusterResourceOverrides"
				if ns != "" {
					what = "ResourceOverrides in " + ns
				}
				return []string{fmt.Sprintf("%s: latest snapshots %s", what, d)}
			}
			return nil
		})
}

func orNone(index string) string {
	if strings.TrimSpace(index) == "" {
		return "none"
	}
	return index
}
