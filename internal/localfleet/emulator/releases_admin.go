package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"sort"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// ReleaseRequest is what POST /_emulator/releases takes: a Kubernetes
// version (GA, or preview with Preview) or a node image ("<os sku>-<version>")
// to make available in Region from the current simulated time on.
type ReleaseRequest struct {
	Region            string `json:"region"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	NodeImage         string `json:"nodeImage,omitempty"`
	Preview           bool   `json:"preview,omitempty"`
}

// ReleaseStatus is a release the emulator knows: the region (its fleet file
// name) and the release, At being when it became or becomes available.
type ReleaseStatus struct {
	Region string `json:"region"`
	fleetfile.Release
}

var releaseVersionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// Release makes a version available in a region now, as if the fleet file
// had a release at the current simulated time: the region's
// kubernetesVersions, the channels and update runs see it from this instant,
// and the fleet is advanced at once, so auto-upgrade profiles whose channel
// target changes trigger before Release returns.
func (s *Server) Release(req ReleaseRequest) (ReleaseStatus, error) {
	switch {
	case req.Region == "":
		return ReleaseStatus{}, errors.New("region is required")
	case (req.KubernetesVersion == "") == (req.NodeImage == ""):
		return ReleaseStatus{}, errors.New("set exactly one of kubernetesVersion and nodeImage")
	case req.KubernetesVersion != "" && !releaseVersionPattern.MatchString(req.KubernetesVersion):
		return ReleaseStatus{}, fmt.Errorf("kubernetesVersion %q is not MAJOR.MINOR.PATCH", req.KubernetesVersion)
	case req.NodeImage != "" && req.Preview:
		return ReleaseStatus{}, errors.New("preview applies to kubernetesVersion only")
	}
	if req.NodeImage != "" {
		if _, v := fleetfile.SplitNodeImage(req.NodeImage); v == "" {
			return ReleaseStatus{}, fmt.Errorf("nodeImage %q: want <os sku>-<version>", req.NodeImage)
		}
	}
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	_, name, ok := w.region(req.Region)
	if !ok {
		return ReleaseStatus{}, fmt.Errorf("region %q is not in the fleet file (regions: %v)", req.Region, w.regionNames())
	}
	now := w.clock.Now()
	rel := fleetfile.Release{At: now, KubernetesVersion: req.KubernetesVersion, Preview: req.Preview, NodeImage: req.NodeImage}

	// Copy on write: the world's file and the runner's regions are replaced,
	// never changed in place, so the Config.File the caller passed to New
	// stays as it was.
	file := *w.file
	file.Regions = maps.Clone(w.file.Regions)
	r := file.Regions[name]
	r.Releases = append(append([]fleetfile.Release(nil), r.Releases...), rel)
	file.Regions[name] = r
	w.file = &file

	regions := maps.Clone(s.runner.regions)
	rr := regions[name]
	rr.Releases = append(append([]rollout.Release(nil), rr.Releases...),
		rollout.Release{At: now, KubernetesVersion: rel.KubernetesVersion, NodeImageVersion: rel.NodeImage})
	regions[name] = rr
	s.runner.regions = regions

	// Members Pending for what was just released are polled again (rollout.Run.FactsChanged).
	for _, rr := range s.runs() {
		rr.run.FactsChanged(now)
	}
	s.advanceRuns(now)
	s.runner.kick()
	return ReleaseStatus{Region: name, Release: rel}, nil
}

// Releases lists the releases of every region, the fleet file's and those
// Release added, by region and then time.
func (s *Server) Releases() []ReleaseStatus {
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	out := []ReleaseStatus{}
	for _, name := range w.regionNames() {
		rels := append([]fleetfile.Release(nil), w.file.Regions[name].Releases...)
		sort.SliceStable(rels, func(i, j int) bool { return rels[i].At.Before(rels[j].At) })
		for _, rel := range rels {
			out = append(out, ReleaseStatus{Region: name, Release: rel})
		}
	}
	return out
}

// serveReleasesAdmin serves /_emulator/releases: POST a ReleaseRequest
// (JSON) to release a version now (201 with the ReleaseStatus), GET to list.
func (s *Server) serveReleasesAdmin(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		var req ReleaseRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "release: %v", err))
			return
		}
		st, err := s.Release(req)
		if err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "release: %v", err))
			return
		}
		writeJSON(w, http.StatusCreated, st)
	case http.MethodGet:
		writeJSON(w, http.StatusOK, listResult[ReleaseStatus]{Value: s.Releases()})
	default:
		w.Header().Set("Allow", "GET, POST")
		writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "/_emulator/releases supports GET and POST"))
	}
}
