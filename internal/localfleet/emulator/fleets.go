package emulator

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

const fleetPath = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets/{fleetName}"

func (s *Server) registerFleetRoutes() {
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/fleets", fleetAPI, s.listFleets)
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/fleets", fleetAPI, s.listFleets)
	s.router.handle(http.MethodGet, fleetPath, fleetAPI, s.getFleet)
	s.router.handle(http.MethodPost, fleetPath+"/listCredentials", fleetAPI, s.listFleetCredentials)
	s.router.handle(http.MethodGet, fleetPath+"/members", fleetAPI, s.listMembers)
	s.router.handle(http.MethodGet, fleetPath+"/members/{memberName}", fleetAPI, s.getMember)
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

// listMembers lists a fleet's members in the fleet file's order: all of them,
// or pages of $top with a nextLink carrying $skipToken.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request, p params) error {
	q := r.URL.Query()
	if q.Get("$filter") != "" {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "$filter is not supported by the local Fleet API emulator.")
	}
	top, skip := 0, 0
	if v := q.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "$top '%s' must be a positive integer.", v)
		}
		top = n
	}
	if v := q.Get("$skipToken"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "$skipToken '%s' is not a token this API issued.", v)
		}
		skip = n
	}
	b, err := s.world.render(func() (any, error) {
		fleet, err := s.parentFleet(p)
		if err != nil {
			return nil, err
		}
		recs := s.world.store.children(fleet.ID, typeFleetMembers)
		out := listResult[fleetapi.FleetMember]{Value: []fleetapi.FleetMember{}}
		end := len(recs)
		if top > 0 && skip+top < end {
			end = skip + top
			next := url.Values{}
			next.Set("api-version", q.Get("api-version"))
			next.Set("$top", strconv.Itoa(top))
			next.Set("$skipToken", strconv.Itoa(end))
			out.NextLink = baseURL(r) + r.URL.Path + "?" + next.Encode()
		}
		for i := skip; i < end; i++ {
			out.Value = append(out.Value, memberView(recs[i]))
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) getMember(w http.ResponseWriter, r *http.Request, p params) error {
	etag := ""
	b, err := s.world.render(func() (any, error) {
		fleet, err := s.parentFleet(p)
		if err != nil {
			return nil, err
		}
		rec, ok := s.world.store.get(fleet.ID + "/members/" + p["memberName"])
		if !ok {
			return nil, armErrorf(http.StatusNotFound, "ResourceNotFound",
				"The Resource 'Microsoft.ContainerService/fleets/%s/members/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
				p["fleetName"], p["memberName"], p["resourceGroupName"])
		}
		etag = rec.ETag
		return memberView(rec), nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag)
	writeRawJSON(w, http.StatusOK, b)
	return nil
}
