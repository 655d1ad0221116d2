package view

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// Reads composed of the view's: what several previews ask in the same words.

// Members is MembersWithWindowsOf every member.
func Members(ctx context.Context, v Fleet, fleet fleetapi.FleetID) ([]facts.Member, error) {
	return v.MembersWithWindowsOf(ctx, fleet, nil)
}

// HubMemberCluster is the hub's MemberCluster name (NotFound when there is none).
func HubMemberCluster(ctx context.Context, v Fleet, name string) (*clusterv1.MemberCluster, error) {
	mcs, err := v.HubMemberClusters(ctx)
	if err != nil {
		return nil, err
	}
	for i := range mcs {
		if mcs[i].Name == name {
			return &mcs[i], nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: clusterv1.GroupVersion.Group, Resource: "memberclusters"}, name)
}

// HubPlacementExists reports whether the hub has the placement key names.
func HubPlacementExists(ctx context.Context, v Fleet, key hub.PlacementKey) (bool, error) {
	_, err := v.HubPlacement(ctx, key)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || hub.IsNotFound(err):
		return false, nil
	default:
		return false, err
	}
}

// RegionLists is AKS's lists of v as RegionNodeImages reads them.
type RegionLists interface {
	KubernetesVersions(ctx context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error)
	NodeImageVersions(ctx context.Context, location string) ([]aks.NodeImageVersion, error)
}
