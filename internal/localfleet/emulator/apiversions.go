package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// The Fleet API's two versions: stable 2026-06-01 (openapi/fleets.json) and
// 2026-11-01-preview (openapi/fleets-2026-11-01-preview.json). Every Fleet
// API route serves both; the preview's own actions (credentials.go) serve
// the preview only, so a stable request for one is refused as ARM refuses an
// api-version an operation does not have. One record serves both versions,
// as one resource does in ARM:
//   - a request body is held to its version's document (strict.go), so a
//     stable body with maxAllowedFailures is refused as unknown;
//   - a stable answer leaves out what only the preview defines (stableView);
//   - Choice: a stable write of a resource that has preview-only fields
//     keeps them untouched (keepPreviewFields), as ARM asks of a service
//     that an older api-version's PUT not erase a newer one's properties; a
//     client that wants them gone writes at the preview version.

// isPreview reports whether r is a request of the preview api-version.
func isPreview(r *http.Request) bool {
	return r.URL.Query().Get("api-version") == fleetapi.PreviewAPIVersion
}

// previewOnly serves the preview api-version only.
var previewOnly = apiVersions{fleetapi.PreviewAPIVersion}

// previewOnlyProperties are the properties that the preview document gives
// definitions both documents have and that no stable definition has
// (TestPreviewOnlyPropertiesAreTheDocuments derives them from the two).
var previewOnlyProperties = map[string]bool{
	"failureCount":                true, // UpdateRunStatus, UpdateStageStatus, UpdateGroupStatus
	"maxAllowedFailures":          true, // UpdateStage, UpdateGroup and their statuses
	"memberSelector":              true, // UpdateStage, UpdateGroup
	"scheduledStartConfiguration": true, // GateConfiguration
	"scheduledStartProperties":    true, // GateProperties
	"lastTriggerMessage":          true, // AutoUpgradeProfileStatus
	"placedMembers":               true, // FleetManagedNamespaceProperties
	"meshProperties":              true, // FleetMemberProperties
}

// freeFormProperties are the maps whose keys are the user's (both
// documents' additionalProperties, and ARM's userAssignedIdentities): a
// label named "failureCount" is not a property to strip.
var freeFormProperties = map[string]bool{"tags": true, "labels": true, "annotations": true, "matchLabels": true, "userAssignedIdentities": true}

// stableView makes w leave preview-only properties out of the JSON a
// stable (2026-06-01) request is answered with; flush writes what the
// handler wrote. Other versions pass through.
func stableView(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	if r.URL.Query().Get("api-version") != fleetapi.APIVersion {
		return w, func() {}
	}
	sw := &stripWriter{ResponseWriter: w}
	return sw, sw.flush
}

// stripWriter holds a response until the handler is done.
type stripWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (s *stripWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *stripWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.body.Write(b)
}

func (s *stripWriter) flush() {
	if s.status == 0 {
		return
	}
	b := s.body.Bytes()
	var v any
	if len(b) > 0 && json.Unmarshal(b, &v) == nil && stripPreview(v) {
		if out, err := json.Marshal(v); err == nil {
			b = out
		}
	}
	if s.Header().Get("Content-Length") != "" {
		s.Header().Set("Content-Length", strconv.Itoa(len(b)))
	}
	s.ResponseWriter.WriteHeader(s.status)
	_, _ = s.ResponseWriter.Write(b)
}

// stripPreview drops previewOnlyProperties from a decoded JSON value, at
// any depth but inside free-form maps, and reports whether it dropped any
// (an answer without them is sent as the handler wrote it).
func stripPreview(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			switch {
			case previewOnlyProperties[k]:
				delete(t, k)
				changed = true
			case freeFormProperties[k]:
			default:
				changed = stripPreview(e) || changed
			}
		}
	case []any:
		for _, e := range t {
			changed = stripPreview(e) || changed
		}
	}
	return changed
}

// keepPreviewFields gives a strategy written at the stable version the
// preview-only fields of the strategy it replaces (stages and groups
// matched by name): maxAllowedFailures, memberSelector and ScheduledStart
// gates, each at the position it had.
func keepPreviewFields(body, old *fleetapi.UpdateRunStrategy) {
	if body == nil || old == nil {
		return
	}
	for i := range body.Stages {
		st := &body.Stages[i]
		var was *fleetapi.UpdateStage
		for j := range old.Stages {
			if old.Stages[j].Name == st.Name {
				was = &old.Stages[j]
			}
		}
		if was == nil {
			continue
		}
		st.MaxAllowedFailures, st.MemberSelector = was.MaxAllowedFailures, was.MemberSelector
		st.BeforeGates = keepScheduledGates(st.BeforeGates, was.BeforeGates)
		for k := range st.Groups {
			g := &st.Groups[k]
			for _, wg := range was.Groups {
				if wg.Name == g.Name {
					g.MaxAllowedFailures, g.MemberSelector = wg.MaxAllowedFailures, wg.MemberSelector
					g.BeforeGates = keepScheduledGates(g.BeforeGates, wg.BeforeGates)
				}
			}
		}
	}
}

// keepScheduledGates puts old's ScheduledStart gates back into gates (which a
// stable body cannot hold) at the positions they had.
func keepScheduledGates(gates, old []fleetapi.GateConfiguration) []fleetapi.GateConfiguration {
	out := append([]fleetapi.GateConfiguration(nil), gates...)
	for i, g := range old {
		if g.Type != fleetapi.GateTypeScheduledStart {
			continue
		}
		at := min(i, len(out))
		out = append(out[:at], append([]fleetapi.GateConfiguration{g}, out[at:]...)...)
	}
	return out
}

// hasPreviewFields reports whether a strategy uses what only the preview
// defines.
func hasPreviewFields(s *fleetapi.UpdateRunStrategy) bool {
	if s == nil {
		return false
	}
	scheduled := func(gs []fleetapi.GateConfiguration) bool {
		for _, g := range gs {
			if g.Type != fleetapi.GateTypeApproval || g.ScheduledStartConfiguration != nil {
				return true
			}
		}
		return false
	}
	for _, st := range s.Stages {
		if st.MaxAllowedFailures != "" || st.MemberSelector != nil || scheduled(st.BeforeGates) || scheduled(st.AfterGates) {
			return true
		}
		for _, g := range st.Groups {
			if g.MaxAllowedFailures != "" || g.MemberSelector != nil || scheduled(g.BeforeGates) || scheduled(g.AfterGates) {
				return true
			}
		}
	}
	return false
}
