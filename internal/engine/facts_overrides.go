package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// OverrideFacts are what the override previews of a placement read of it: the resources of its
// latest resource snapshot, in the order the work generator reads them (hub.Client.
// LatestSelectedResources). Its bindings and the member clusters' labels are in the facts'
// Placements and Hub; the override snapshots of the namespaces involved in OverrideSnapshots.
type OverrideFacts struct {
	Namespace string `json:"namespace,omitempty"`
	Placement string `json:"placement"`
	// Index is the latest resource snapshot's index, "" before the hub agent cut one.
	Index     string            `json:"index,omitempty"`
	Resources []json.RawMessage `json:"resources,omitempty"`
}

// OverrideSnapshotFacts are the latest override snapshots of one namespace ("": the
// ClusterResourceOverrides), as hub.Client.LatestOverrideSnapshots lists them.
type OverrideSnapshotFacts struct {
	Namespace string                 `json:"namespace,omitempty"`
	Snapshots []hub.OverrideSnapshot `json:"snapshots,omitempty"`
}

func (o OverrideFacts) key() hub.PlacementKey {
	return hub.PlacementKey{Namespace: o.Namespace, Name: o.Placement}
}

// ReadOverrideFacts adds to f what override previews of each placement read: its latest
// resources, and the latest override snapshots of the ClusterResourceOverrides, of the placement's
// namespace and of every namespace its resources are in.
func (c *Clients) ReadOverrideFacts(ctx context.Context, f *Facts, placements []hub.PlacementKey) error {
	if len(placements) == 0 {
		return nil
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return err
	}
	nss := map[string]bool{"": true}
	for _, key := range placements {
		resources, index, err := h.LatestSelectedResources(ctx, key)
		if err != nil {
			return fmt.Errorf("the resources of %s %s: %w", key.Kind(), key, err)
		}
		of := OverrideFacts{Namespace: key.Namespace, Placement: key.Name, Index: index}
		for _, r := range resources {
			of.Resources = append(of.Resources, json.RawMessage(r))
		}
		f.Overrides = append(f.Overrides, of)
		nss[key.Namespace] = true
		for _, ns := range ResourceNamespaces(resources) {
			nss[ns] = true
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(nss)) {
		snaps, err := h.LatestOverrideSnapshots(ctx, ns)
		if err != nil {
			return fmt.Errorf("the override snapshots of namespace %q: %w", ns, err)
		}
		f.OverrideSnapshots = append(f.OverrideSnapshots, OverrideSnapshotFacts{Namespace: ns, Snapshots: snaps})
	}
	return nil
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

// LatestSelectedResources is what the placement's latest resource snapshot holds
// (hub.Client.LatestSelectedResources); a pinned view answers from the facts.
func (c *Clients) LatestSelectedResources(ctx context.Context, key hub.PlacementKey) ([][]byte, string, error) {
	if c.pinned != nil {
		for _, o := range c.pinned.Overrides {
			if o.key() == key {
				out := make([][]byte, len(o.Resources))
				for i, r := range o.Resources {
					out[i] = bytes.Clone(r)
				}
				return out, o.Index, nil
			}
		}
		return nil, "", &FactsNotReadError{What: fmt.Sprintf("the resources of %s %s (add %q to override_placements)", key.Kind(), key, key.String())}
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, "", err
	}
	return h.LatestSelectedResources(ctx, key)
}

// LatestOverrideSnapshots lists the latest override snapshots of namespace ns ("": the
// ClusterResourceOverrides; hub.Client.LatestOverrideSnapshots); a pinned view answers from the
// facts.
func (c *Clients) LatestOverrideSnapshots(ctx context.Context, ns string) ([]hub.OverrideSnapshot, error) {
	if c.pinned != nil {
		for _, s := range c.pinned.OverrideSnapshots {
			if s.Namespace == ns {
				out := make([]hub.OverrideSnapshot, len(s.Snapshots))
				for i, o := range s.Snapshots { // copies: the snapshots are the facts' own
					out[i] = o
					out[i].Spec = *o.Spec.DeepCopy()
					out[i].ResourceSelectors = nil
					for _, rs := range o.ResourceSelectors {
						out[i].ResourceSelectors = append(out[i].ResourceSelectors, *rs.DeepCopy())
					}
				}
				return out, nil
			}
		}
		what := "the ClusterResourceOverrides' snapshots"
		if ns != "" {
			what = fmt.Sprintf("the ResourceOverrides' snapshots of namespace %q", ns)
		}
		return nil, &FactsNotReadError{What: what + " (add the placement whose resources are there to override_placements)"}
	}
	h, err := c.HubAPI(ctx)
	if err != nil {
		return nil, err
	}
	return h.LatestOverrideSnapshots(ctx, ns)
}

// HubPlacementExists reports whether the hub has the placement key names; a pinned view answers
// from the facts.
func (c *Clients) HubPlacementExists(ctx context.Context, key hub.PlacementKey) (bool, error) {
	_, err := c.HubPlacement(ctx, key)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || hub.IsNotFound(err):
		return false, nil
	default:
		return false, err
	}
}

// movedOverrides says how each placement's latest resources and each namespace's override
// snapshots moved: a new resource snapshot, overrides whose latest snapshot appeared, went or
// changed.
func movedOverrides(planned, now *Facts) []string {
	out := pairUp(planned.Overrides, now.Overrides, func(o OverrideFacts) string { return o.key().String() }, "resources of placement", "the facts",
		func(name string, b, a OverrideFacts) []string {
			if b.Index == a.Index && len(b.Resources) == len(a.Resources) {
				return nil
			}
			return []string{fmt.Sprintf("placement %s: latest resource snapshot %s (%d resources) → %s (%d resources)",
				name, orNone(b.Index), len(b.Resources), orNone(a.Index), len(a.Resources))}
		})
	return append(out, pairUp(planned.OverrideSnapshots, now.OverrideSnapshots, func(s OverrideSnapshotFacts) string { return s.Namespace }, "override snapshots of namespace", "the facts",
		func(ns string, b, a OverrideSnapshotFacts) []string {
			names := func(s OverrideSnapshotFacts) map[string]string {
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
		})...)
}

func orNone(index string) string {
	if strings.TrimSpace(index) == "" {
		return "none"
	}
	return index
}
