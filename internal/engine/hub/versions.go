package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
)

// Which API version of a kind the hub is spoken to in. KubeFleet v0.18.9 serves
// placement.kubernetes-fleet.io/v1 for placements, bindings, snapshots, works, overrides and staged
// runs, and only v1beta1 for envelopes, evictions and disruption budgets
// (config/crd/bases/*.yaml, "served: true"); an older hub may serve a kind in v1beta1 only. The
// provider asks the hub once per client (once per provider process) and then speaks the newest
// version it serves: the kinds' Go types are v1's, whose JSON v1beta1 shares (both versions are
// served from one stored object without conversion).

// preference is the order in which a group's versions are tried.
var preference = []string{"v1", "v1beta1"}

// served is what the hub's discovery answered for KubeFleet's groups: resource → versions.
type served struct {
	mu       sync.Mutex
	done     bool
	versions map[schema.GroupResource][]string
	server   string // the hub's Kubernetes version, for errors
}

// discover reads the hub's API groups once; a failed discovery (a hub briefly unreachable) is
// tried again on the next request. Without a discovery client (hubtest's fake) every kind is
// taken as served in the version the caller names.
func (c *Client) discover() (map[schema.GroupResource][]string, string, error) {
	s := &c.served
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || c.disc == nil {
		return s.versions, s.server, nil
	}
	versions := map[schema.GroupResource][]string{}
	server := ""
	if v, err := c.disc.ServerVersion(); err == nil {
		server = v.GitVersion
	}
	for _, group := range []string{PlacementGVR.Group, MemberClusterGVR.Group} {
		for _, version := range preference {
			gv := schema.GroupVersion{Group: group, Version: version}.String()
			rl, err := c.disc.ServerResourcesForGroupVersion(gv)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, "", fmt.Errorf("discovering the hub's %s API: %w", gv, err)
			}
			for _, r := range rl.APIResources {
				if strings.Contains(r.Name, "/") { // subresources
					continue
				}
				gr := schema.GroupResource{Group: group, Resource: r.Name}
				versions[gr] = append(versions[gr], version)
			}
		}
	}
	s.versions, s.server, s.done = versions, server, true
	return versions, server, nil
}

// resolve is gvr in the newest version the hub serves its kind in, or an error that names the
// kind and the hub's version.
func (c *Client) resolve(_ context.Context, gvr schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	if gvr.Group != PlacementGVR.Group && gvr.Group != MemberClusterGVR.Group {
		return gvr, nil
	}
	versions, server, err := c.discover()
	if err != nil {
		return gvr, err
	}
	if versions == nil {
		return gvr, nil
	}
	have := versions[gvr.GroupResource()]
	for _, v := range preference {
		if slices.Contains(have, v) {
			gvr.Version = v
			return gvr, nil
		}
	}
	return gvr, &NotServedError{Resource: gvr.GroupResource(), Server: server}
}

// NotServedError says the hub does not serve a kind KubeFleet v0.18.9 has.
type NotServedError struct {
	Resource schema.GroupResource
	Server   string
}

func (e *NotServedError) Error() string {
	server := e.Server
	if server == "" {
		server = "unknown"
	}
	return fmt.Sprintf("the hub (Kubernetes %s) does not serve %s in %s: it is not a KubeFleet hub, or its KubeFleet is older than v0.18 (install KubeFleet v0.18.9's CRDs)",
		server, e.Resource, strings.Join(preference, " or "))
}

// res is the dynamic client of gvr's kind, in the version the hub serves.
func (c *Client) res(ctx context.Context, gvr schema.GroupVersionResource) (dynamic.NamespaceableResourceInterface, error) {
	gvr, err := c.resolve(ctx, gvr)
	if err != nil {
		return nil, err
	}
	return c.dyn.Resource(gvr), nil
}

// metaRes is the metadata client of gvr's kind, in the version the hub serves.
func (c *Client) metaRes(ctx context.Context, gvr schema.GroupVersionResource) (metadata.Getter, error) {
	gvr, err := c.resolve(ctx, gvr)
	if err != nil {
		return nil, err
	}
	return c.meta.Resource(gvr), nil
}
