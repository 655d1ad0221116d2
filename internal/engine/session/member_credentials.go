package session

import (
	"context"
	"sort"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// prefetchClusters reads the kubeconfigs of several members in one request when the provider
// speaks the preview Fleet API (2026-11-01-preview fleets/listMemberCredentials: "many
// members' kubeconfigs in one call"), instead of a fleet member read and an AKS
// listClusterUserCredential for each: a snapshot of 50 Karpenter clusters is then one POST, not
// 100 requests counted against ARM's limits. Members in cluster blocks, already connected (or being), or
// that the batch could not give (a Failed result) keep the one-by-one path, which reports its own
// error; a failed batch is only logged through that path too.
func (c *Session) prefetchClusters(ctx context.Context, names []string) {
	if c.FleetAPIVersion() != fleetapi.PreviewAPIVersion || c.o.Azure == nil || c.o.AzureUnknown || c.o.ClustersUnknown {
		return
	}
	fid, err := c.DefaultFleet()
	if err != nil {
		return
	}
	var want []string
	c.mu.Lock()
	for _, name := range names {
		if _, configured := c.o.Clusters[name]; configured || c.o.UnknownClusters[name] {
			continue
		}
		if _, ok := c.clusters[name]; ok {
			continue // connected or being connected already
		}
		want = append(want, name)
	}
	c.mu.Unlock()
	if len(want) < 2 {
		return
	}
	sort.Strings(want)
	fc, err := c.Fleet()
	if err != nil {
		return
	}
	results, err := fc.ListMemberCredentials(ctx, fid, want)
	if err != nil {
		return
	}
	c.mu.Lock()
	c.batchCredentialCalls++
	c.mu.Unlock()
	for _, r := range results {
		kc, err := r.DecodeKubeconfig()
		if err != nil {
			continue
		}
		cfg, err := c.fromKubeconfig(kc)
		if err != nil {
			continue
		}
		client, err := kube.NewClient(cfg, c.o.UserAgent)
		if err != nil {
			continue
		}
		c.mu.Lock()
		l, ok := c.clusters[r.Name]
		if !ok {
			l = &lazy[*kube.Client]{}
			c.clusters[r.Name] = l
		}
		c.mu.Unlock()
		_, _ = l.get(ctx, func(context.Context) (*kube.Client, error) { return client, nil })
	}
}

// BatchCredentialCalls counts the batched member credential requests (tests assert it).
func (c *Session) BatchCredentialCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.batchCredentialCalls
}
