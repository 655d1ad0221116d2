package emulator

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

const fleetPath = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/{fleetName}"

func (s *Server) registerFleetRoutes() {
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/fleets", fleetAPI, s.listFleets)
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets", fleetAPI, s.listFleets)
	s.router.handle(http.MethodGet, fleetPath, fleetAPI, s.getFleet)
	s.router.handle(http.MethodPost, fleetPath+"/listCredentials", fleetAPI, s.listFleetCredentials)
	s.registerChild(&childKind{
		typ: typeFleetMembers, segment: "members", param: "memberName", label: "fleet member",
		checkName: checkMemberName, view: viewOf(s.memberView), decode: decodeMember, patch: s.patchMember, build: s.buildMember,
		commit: s.commitMember, afterRemove: s.memberLeft,
	})
}

// fleetRecord finds the fleet of a request. The caller holds the world lock.
func (s *Server) fleetRecord(p params) (*record, error) {
	if err := s.checkResourceGroup(p); err != nil {
		return nil, err
	}
	rec, ok := s.world.store.get(fleetID(p["subscriptionId"], p["resourceGroupName"], p["fleetName"]))
	if !ok {
		return nil, armErrorf(http.StatusNotFound, "ResourceNotFound",
			"The Resource 'Microsoft.ContainerService/fleets/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
			p["fleetName"], p["resourceGroupName"])
	}
	return rec, nil
}

// parentFleet is fleetRecord for a request on a fleet's child resource.
func (s *Server) parentFleet(p params) (*record, error) {
	rec, err := s.fleetRecord(p)
	var ae *armError
	if err != nil && errors.As(err, &ae) && ae.code == "ResourceNotFound" {
		return nil, armErrorf(http.StatusNotFound, "ParentResourceNotFound",
			"Can not perform requested operation on nested resource. Parent resource '%s' not found.", p["fleetName"])
	}
	return rec, err
}

func fleetView(rec *record) fleetapi.Fleet {
	f, _ := rec.Value.(fleetapi.Fleet)
	f.ETag = rec.ETag
	return f
}

func memberView(rec *record) fleetapi.FleetMember {
	m, _ := rec.Value.(fleetapi.FleetMember)
	m.ETag = rec.ETag
	return m
}

func (s *Server) getFleet(w http.ResponseWriter, r *http.Request, p params) error {
	etag := ""
	b, err := s.world.render(func() (any, error) {
		rec, err := s.fleetRecord(p)
		if err != nil {
			return nil, err
		}
		etag = rec.ETag
		return fleetView(rec), nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag)
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

// listFleets lists the fleets of a subscription or of a resource group.
func (s *Server) listFleets(w http.ResponseWriter, r *http.Request, p params) error {
	b, err := s.world.render(func() (any, error) {
		scope := "/subscriptions/" + p["subscriptionId"]
		if rg, ok := p["resourceGroupName"]; ok {
			if err := s.checkResourceGroup(p); err != nil {
				return nil, err
			}
			scope = resourceGroupID(p["subscriptionId"], rg)
		} else if err := s.checkSubscription(p); err != nil {
			return nil, err
		}
		out := listResult[fleetapi.Fleet]{Value: []fleetapi.Fleet{}}
		for _, rec := range s.world.store.ofType(scope, typeFleets) {
			out.Value = append(out.Value, fleetView(rec))
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) listFleetCredentials(w http.ResponseWriter, r *http.Request, p params) error {
	s.world.mu.Lock()
	_, err := s.fleetRecord(p)
	s.world.mu.Unlock()
	if err != nil {
		return err
	}
	if len(s.cfg.HubKubeconfig) == 0 {
		return armErrorf(http.StatusBadRequest, "OperationNotAllowed",
			"Fleet '%s' has no hub API server in this local fleet: the emulator was started without a hub kubeconfig.", p["fleetName"])
	}
	writeJSON(w, http.StatusOK, fleetapi.FleetCredentialResults{
		Kubeconfigs: []fleetapi.FleetCredentialResult{{Name: "hub", Value: s.cfg.HubKubeconfig}},
	})
	return nil
}

// Members join and leave (fleets/members PUT, PATCH and DELETE). The
// managed cluster a PUT names must be one the fleet file declares, in the
// fleet's subscription and resource group, and in no other member; a member
// of the file with joined: false is such a cluster. clusterResourceId is
// set at creation only (fleets.json: x-ms-mutability read, create). In a
// local fleet, Config.Members makes the hub follow: a join creates the
// member's MemberCluster and starts its simulated member agent, a change of
// labels reaches the MemberCluster's labels (as Fleet Manager propagates a
// member's labels), and a leave removes both.

// MemberHooks make a local fleet's hub follow the Fleet API's members.
type MemberHooks interface {
	// JoinMember runs when a member joins or changes: cluster is the name of
	// its managed cluster in the fleet file; labels are the member's.
	JoinMember(ctx context.Context, member, cluster string, labels map[string]string) error
	// LeaveMember runs when a member has left.
	LeaveMember(ctx context.Context, member string) error
}

// memberNamePattern is fleets.json's fleetMemberName parameter (minLength 1, maxLength 50, pattern).
var memberNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func checkMemberName(name string) error {
	if len(name) < 1 || len(name) > 50 || !memberNamePattern.MatchString(name) {
		return armErrorf(http.StatusBadRequest, "InvalidResourceName",
			"The fleet member name '%s' is invalid: use 1 to 50 lower-case letters, digits and '-', starting and ending with a letter or digit.", name)
	}
	return nil
}

func (s *Server) memberView(rec *record) fleetapi.FleetMember {
	m := memberView(rec)
	if m.SystemData == nil {
		m.SystemData = s.systemData(rec)
	}
	return m
}

// decodeMember reads a member's PUT body.
func decodeMember(r *http.Request) (any, error) {
	var body fleetapi.FleetMember
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	if body.Properties == nil || body.Properties.ClusterResourceID == "" {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.clusterResourceId is required.")
	}
	if g := body.Properties.Group; g != "" && (len(g) > 50 || !memberNamePattern.MatchString(g)) {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter",
			"properties.group '%s' is invalid: use 1 to 50 lower-case letters, digits and '-', starting and ending with a letter or digit.", g)
	}
	return *body.Properties, nil
}

// patchMember turns a PATCH (FleetMemberUpdate: group and labels) into the
// member's properties; absent fields keep their value.
func (s *Server) patchMember(r *http.Request, current *record) (any, error) {
	var body struct {
		Properties *struct {
			Group  *string            `json:"group,omitempty"`
			Labels *map[string]string `json:"labels,omitempty"`
		} `json:"properties,omitempty"`
	}
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	m := memberView(current)
	props := *m.Properties
	if p := body.Properties; p != nil {
		if p.Group != nil {
			props.Group = *p.Group
		}
		if p.Labels != nil {
			props.Labels = *p.Labels
		}
	}
	return props, nil
}

// buildMember checks the cluster a member names and makes the stored member.
// The caller holds w.mu.
func (s *Server) buildMember(c childWrite) (any, bool, error) {
	props, _ := c.body.(fleetapi.FleetMemberProperties)
	f := s.cfg.File.Fleet
	if c.old != nil {
		prev := memberView(c.old)
		if !strings.EqualFold(prev.Properties.ClusterResourceID, props.ClusterResourceID) {
			return nil, false, armErrorf(http.StatusBadRequest, "PropertyChangeNotAllowed",
				"properties.clusterResourceId can only be set when the fleet member is created.")
		}
		props.ClusterResourceID = prev.Properties.ClusterResourceID
	} else {
		id, err := arm.ParseResourceID(props.ClusterResourceID)
		if err != nil || !strings.EqualFold(id.ResourceType.String(), typeManagedClusters) {
			return nil, false, armErrorf(http.StatusBadRequest, "InvalidParameter",
				"properties.clusterResourceId '%s' is not a managed cluster's resource ID.", props.ClusterResourceID)
		}
		cl, ok := s.world.clusters[strings.ToLower(id.Name)]
		if !ok || !strings.EqualFold(id.SubscriptionID, f.SubscriptionID) || !strings.EqualFold(id.ResourceGroupName, f.ResourceGroup) {
			return nil, false, armErrorf(http.StatusNotFound, "ResourceNotFound",
				"The managed cluster '%s' was not found: the local fleet knows the clusters of its fleet file, in resource group '%s'.", props.ClusterResourceID, f.ResourceGroup)
		}
		for _, rec := range s.world.store.children(c.fleet.ID, typeFleetMembers) {
			if other := memberView(rec); strings.EqualFold(other.Properties.ClusterResourceID, props.ClusterResourceID) {
				return nil, false, armErrorf(http.StatusConflict, "Conflict",
					"The managed cluster '%s' is already a member of fleet '%s' as '%s'.", cl.Name, f.Name, other.Name)
			}
		}
		props.ClusterResourceID = managedClusterID(f.SubscriptionID, f.ResourceGroup, cl.Name)
	}
	props.ProvisioningState, props.Status = "Succeeded", nil
	return fleetapi.FleetMember{
		Resource:   fleetapi.Resource{ID: c.id, Name: c.name, Type: typeFleetMembers},
		Properties: &props,
	}, false, nil
}

// commitMember makes the hub follow a join or change (outside the world lock).
func (s *Server) commitMember(_, value any) error {
	if s.cfg.Members == nil {
		return nil
	}
	m, _ := value.(fleetapi.FleetMember)
	id := m.Properties.ClusterResourceID
	cluster := id[strings.LastIndex(id, "/")+1:]
	if err := s.cfg.Members.JoinMember(context.Background(), m.Name, cluster, m.Properties.Labels); err != nil {
		return armErrorf(http.StatusInternalServerError, "MemberJoinFailed", "The fleet hub did not take member '%s': %v", m.Name, err)
	}
	return nil
}

// memberLeft makes the hub follow a member that left.
func (s *Server) memberLeft(value any) error {
	if s.cfg.Members == nil {
		return nil
	}
	m, _ := value.(fleetapi.FleetMember)
	if err := s.cfg.Members.LeaveMember(context.Background(), m.Name); err != nil {
		return armErrorf(http.StatusInternalServerError, "MemberLeaveFailed", "The fleet hub did not let member '%s' go: %v", m.Name, err)
	}
	return nil
}
