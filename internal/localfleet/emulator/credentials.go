package emulator

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The preview's credential actions (fleets-2026-11-01-preview.json), served
// at that api-version only (a stable request is refused as ARM refuses an
// api-version an operation lacks):
//   - POST fleets/{f}/listMemberCredentials: FleetMemberCredentialRequest in,
//     pages of FleetMemberCredentialResults out, each member Succeeded with
//     its kubeconfig ("The base64-encoded Kubernetes configuration file when
//     credential retrieval succeeds.") or Failed with an error;
//   - POST fleets/{f}/managedNamespaces/{n}/listCredentials: the hub's
//     kubeconfig. Choice: the emulator has no identity scoped to a namespace,
//     so it is the hub's kubeconfig that fleets/listCredentials serves;
//   - POST fleets/{f}/managedNamespaces/{n}/listMemberCredentials: as the
//     fleet's, for the members the namespace is placed on ("Lists the Fleet
//     member credentials scoped to the managed namespace"; its upstream
//     example answers the placed member only), as the hub reports them now
//     (NamespaceHooks.PlacedMembers, asked before the world is locked;
//     without hooks there is no hub, and the namespace is placed nowhere).
//     Without names, every member it is placed on; a member named that it
//     is not placed on is Failed, ManagedNamespaceNotPlaced (Choice: the spec
//     names no code; its example's generic MemberCredentialFetchFailed would
//     not say why).

// memberCredentialPage is the page size when the request sets no
// maxPageSize. Choice: the spec names none ("The service may return fewer
// results.").
const memberCredentialPage = 20

func (s *Server) registerCredentialRoutes() {
	s.router.handle(http.MethodPost, fleetPath+"/listMemberCredentials", previewOnly, s.listMemberCredentials)
	ns := fleetPath + "/managedNamespaces/{managedNamespaceName}"
	s.router.handle(http.MethodPost, ns+"/listCredentials", previewOnly, s.listNamespaceCredentials)
	s.router.handle(http.MethodPost, ns+"/listMemberCredentials", previewOnly, s.listMemberCredentials)
}

// listNamespaceCredentials answers a managed namespace's listCredentials.
func (s *Server) listNamespaceCredentials(w http.ResponseWriter, r *http.Request, p params) error {
	s.world.mu.Lock()
	err := s.checkNamespace(p)
	s.world.mu.Unlock()
	if err != nil {
		return err
	}
	return s.listFleetCredentials(w, r, p)
}

// checkNamespace answers 404 for a managed namespace that does not exist
// (no name: the fleet's action). The caller holds w.mu.
func (s *Server) checkNamespace(p params) error {
	fleet, err := s.parentFleet(p)
	if err != nil {
		return err
	}
	name, ok := p["managedNamespaceName"]
	if !ok {
		return nil
	}
	if _, found := s.world.store.get(fleet.ID + "/managedNamespaces/" + name); !found {
		return notFound("managedNamespaces", p["fleetName"], name, p["resourceGroupName"])
	}
	return nil
}

// listMemberCredentials answers one page of members' credentials.
func (s *Server) listMemberCredentials(w http.ResponseWriter, r *http.Request, p params) error {
	var req fleetapi.FleetMemberCredentialRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	size := memberCredentialPage
	if req.MaxPageSize != nil {
		size = int(*req.MaxPageSize) // the strict check holds it to minimum 1
	}
	placement, err := s.namespacePlacement(r.Context(), p)
	if err != nil {
		return err
	}
	b, err := s.world.render(func() (any, error) {
		if err := s.checkNamespace(p); err != nil {
			return nil, err
		}
		names := s.credentialMembers(req.MemberNames, placement)
		start, err := continuation(req.ContinuationToken, names)
		if err != nil {
			return nil, err
		}
		end := min(start+size, len(names))
		out := fleetapi.FleetMemberCredentialResults{Value: []fleetapi.FleetMemberCredentialResult{}}
		for _, n := range names[start:end] {
			out.Value = append(out.Value, s.memberCredential(n, placement))
		}
		if end < len(names) {
			out.ContinuationToken = continuationToken(end, names)
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

// placement is where a managed namespace is placed: its members by
// lower-cased name, and the names as the hub gave them (sorted).
type placement struct {
	namespace string
	members   map[string]bool
	names     []string
}

// namespacePlacement asks the hub where the request's managed namespace is
// placed; nil for the fleet's action. The caller does not hold w.mu.
func (s *Server) namespacePlacement(ctx context.Context, p params) (*placement, error) {
	name, ok := p["managedNamespaceName"]
	if !ok {
		return nil, nil
	}
	out := &placement{namespace: name, members: map[string]bool{}}
	if s.cfg.Namespaces == nil {
		return out, nil
	}
	// Kubernetes requests time out after a minute (DESIGN.md).
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	names, err := s.cfg.Namespaces.PlacedMembers(ctx, strings.ToLower(name))
	if err != nil {
		return nil, armErrorf(http.StatusInternalServerError, "ManagedNamespacePlacementUnavailable",
			"The fleet hub did not say where managed namespace '%s' is placed: %v", name, err)
	}
	out.names = names
	for _, n := range names {
		out.members[strings.ToLower(n)] = true
	}
	return out, nil
}

// credentialMembers are the members a request selects, each once: those
// named in the order named, or every member in creation order
// (FleetMemberCredentialRequest.memberNames: "When omitted, all applicable
// Fleet members are selected."), for a managed namespace every member it is
// placed on. The caller holds w.mu.
func (s *Server) credentialMembers(requested []string, pl *placement) []string {
	var names []string
	seen := map[string]bool{}
	if len(requested) == 0 {
		for _, rec := range s.world.store.children(s.fleetResourceID(), typeFleetMembers) {
			if n := memberView(rec).Name; pl == nil || pl.members[strings.ToLower(n)] {
				requested = append(requested, n)
			}
		}
	}
	for _, n := range requested {
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			names = append(names, n)
		}
	}
	return names
}

// memberCredential is one member's result: its cluster's kubeconfig, or
// Failed for a name that is no member, a member a managed namespace (pl,
// when set) is not placed on, and a member without an API server (a
// simulated member of the local fleet). The caller holds w.mu.
func (s *Server) memberCredential(name string, pl *placement) fleetapi.FleetMemberCredentialResult {
	failed := func(code, format string, args ...any) fleetapi.FleetMemberCredentialResult {
		return fleetapi.FleetMemberCredentialResult{Name: name, Status: fleetapi.MemberCredentialFailed,
			Error: &fleetapi.ErrorDetail{Code: code, Message: fmt.Sprintf(format, args...)}}
	}
	c, ok := s.world.memberCluster(name)
	if !ok {
		return failed("ResourceNotFound", "The fleet member '%s' was not found.", name)
	}
	if pl != nil && !pl.members[strings.ToLower(name)] {
		where := "no member"
		if len(pl.names) > 0 {
			where = strings.Join(pl.names, ", ")
		}
		return failed("ManagedNamespaceNotPlaced", "The managed namespace '%s' is not placed on fleet member '%s' (it is placed on %s).", pl.namespace, memberName(s, name), where)
	}
	kc, ok := s.cfg.MemberKubeconfigs[c.Name]
	if !ok || len(kc) == 0 {
		return failed("CredentialsUnavailable", "The fleet member '%s' has no API server in this local fleet (a simulated member).", name)
	}
	return fleetapi.FleetMemberCredentialResult{Name: memberName(s, name), Status: fleetapi.MemberCredentialSucceeded, Kubeconfig: base64.StdEncoding.EncodeToString(kc)}
}

// memberName is the member's name as stored (a request may differ in case).
func memberName(s *Server, name string) string {
	f := s.cfg.File.Fleet
	if rec, ok := s.world.store.get(memberID(f.SubscriptionID, f.ResourceGroup, f.Name, name)); ok {
		return memberView(rec).Name
	}
	return name
}

// A continuation token is the offset of the next page and a digest of the
// selection it pages, so a token from another request is refused rather
// than misread.
type pageToken struct {
	Offset int    `json:"o"`
	Digest string `json:"d"`
}

func selectionDigest(names []string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.Join(names, "\n"))))
	return hex.EncodeToString(sum[:8])
}

func continuationToken(offset int, names []string) string {
	b, _ := json.Marshal(pageToken{Offset: offset, Digest: selectionDigest(names)})
	return base64.RawURLEncoding.EncodeToString(b)
}

func continuation(token string, names []string) (int, error) {
	if token == "" {
		return 0, nil
	}
	bad := armErrorf(http.StatusBadRequest, "InvalidParameter", "continuationToken is not a token this API issued for this request.")
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, bad
	}
	var t pageToken
	if json.Unmarshal(b, &t) != nil || t.Digest != selectionDigest(names) || t.Offset < 0 || t.Offset > len(names) {
		return 0, bad
	}
	return t.Offset, nil
}
