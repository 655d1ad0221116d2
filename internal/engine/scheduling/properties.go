package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

// Property names the member agent reports (pkg/propertyprovider/commons.go).
//
// v0.18.9's member agents also report k8s.io/k8s-version, k8s.io/cluster-entrypoint and
// k8s.io/cluster-certificate-authority-data, which are not Quantities: as in v0.14.0, a
// non-Quantity property value aborts a cycle that reads it.
const (
	NodeCountProperty          = "kubernetes-fleet.io/node-count"
	ResourcePropertyNamePrefix = "resources.kubernetes-fleet.io/"

	totalCapacityName       = "total"
	allocatableCapacityName = "allocatable"
	availableCapacityName   = "available"
)

// resourceUsage reads a resources.kubernetes-fleet.io/<capacity type>-<resource> property (the
// prefix already cut) from status.resourceUsage; nil when the cluster does not report the resource
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: retrieveResourceUsageFrom).
//
// The name must split on "-" into exactly two parts, so available-ephemeral-storage, which the
// webhook accepts, is an error here.
func resourceUsage(cluster *clusterv1.MemberCluster, name string) (*resource.Quantity, error) {
	segs := strings.Split(name, "-")
	if len(segs) != 2 || len(segs[0]) == 0 || len(segs[1]) == 0 {
		return nil, fmt.Errorf("invalid resource property name: %s", name)
	}
	capacityType, resourceName := segs[0], corev1.ResourceName(segs[1])
	var q resource.Quantity
	var found bool
	switch capacityType {
	case totalCapacityName:
		q, found = cluster.Status.ResourceUsage.Capacity[resourceName]
	case allocatableCapacityName:
		q, found = cluster.Status.ResourceUsage.Allocatable[resourceName]
	case availableCapacityName:
		q, found = cluster.Status.ResourceUsage.Available[resourceName]
	default:
		return nil, fmt.Errorf("invalid capacity type %s in resource property name %s", capacityType, name)
	}
	if !found {
		return nil, nil
	}
	return &q, nil
}

// propertyValue reads a property, resource or not, as a Quantity; nil when the cluster does not
// report it, an error when the reported value is not a Quantity
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: retrievePropertyValueFrom).
func propertyValue(cluster *clusterv1.MemberCluster, name string) (*resource.Quantity, error) {
	if rest, ok := strings.CutPrefix(name, ResourcePropertyNamePrefix); ok {
		q, err := resourceUsage(cluster, rest)
		if err != nil {
			return nil, fmt.Errorf("failed to retrieve resource property value for %s from cluster %s: %w", rest, cluster.Name, err)
		}
		return q, nil
	}
	v, found := cluster.Status.Properties[clusterv1.PropertyName(name)]
	if !found {
		return nil, nil
	}
	q, err := resource.ParseQuantity(v.Value)
	if err != nil {
		return nil, fmt.Errorf("value %s of property %s from cluster %s is not a valid quantity: %w", v.Value, name, cluster.Name, err)
	}
	return &q, nil
}
